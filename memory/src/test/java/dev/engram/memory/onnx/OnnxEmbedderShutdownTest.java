package dev.engram.memory.onnx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Opening the model while the JVM exits (a server stopped while it warms up): ONNX Runtime cannot start then, and
 * that is no fault of the model, so nothing is logged as one.
 */
class OnnxEmbedderShutdownTest {
    /** A JVM whose only work is to open the model in a shutdown hook, as a warm-up does when the exit overtakes it. */
    public static final class OpenWhileExiting {
        public static void main(String[] args) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                Embedder e = OnnxEmbedder.builder(EmbeddingModel.defaultModel()).threads(1).buildOrUnavailable();
                try {
                    e.embedQuery("hello");
                    System.out.println("opened");
                } catch (RuntimeException failed) {
                    System.out.println("unavailable: " + failed.getMessage());
                }
            }));
            System.out.println("exiting: " + OnnxEmbedder.jvmExiting());
        }
    }

    @Test
    void aModelOpenedWhileTheJvmExitsIsUnavailableWithoutAWarning() throws Exception {
        Process p = new ProcessBuilder(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-Dai.djl.offline=true", "-cp", System.getProperty("java.class.path"),
                OpenWhileExiting.class.getName())).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(out).as(err).contains("exiting: false").contains("unavailable: ").contains("the JVM is exiting");
        // (DJL's own probe for a GPU may warn here: the command line quiets it; it says nothing about the model)
        assertThat(err).doesNotContain("OnnxEmbedder").doesNotContain("cannot be opened");
    }
}

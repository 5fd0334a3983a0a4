package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durability tests' writer children never outlive their test: killed when the test body fails, and gone by
 * themselves when the JVM that started them dies without killing them.
 */
class WriterChildTest {
    private static final List<String> QUICK_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    @TempDir
    Path dir;

    /** A writer like the durability children: appends to a file for ever, after saying READY. */
    public static final class EndlessWriter {
        private EndlessWriter() {
        }

        public static void main(String[] args) throws IOException {
            WriterChild.exitWhenParentDies();
            System.out.println("READY");
            System.out.flush();
            try (Writer out = Files.newBufferedWriter(Path.of(args[0]))) {
                for (long i = 0; ; i++) {
                    out.write("line " + i + "\n");
                    if (i % 1000 == 0) {
                        out.flush();
                        Thread.onSpinWait();
                    }
                }
            }
        }
    }

    /**
     * A test JVM that dies with its writer still running: starts an {@link EndlessWriter}, prints its pid once the
     * writer is ready, and halts without closing it (as a crashed or killed surefire fork would).
     */
    public static final class DyingParent {
        private DyingParent() {
        }

        public static void main(String[] args) throws IOException {
            WriterChild child = WriterChild.start(EndlessWriter.class, QUICK_JVM, args[0]);
            readReady(child.process());
            System.out.println(child.process().pid());
            System.out.flush();
            Runtime.getRuntime().halt(0);
        }
    }

    @Test
    void aWriterIsKilledWhenTheTestBodyFailsBeforeKillingIt() throws Exception {
        Process[] started = new Process[1];
        assertThatThrownBy(() -> {
            try (WriterChild child = WriterChild.start(EndlessWriter.class, QUICK_JVM, dir.resolve("w.txt").toString())) {
                started[0] = child.process();
                readReady(child.process());
                assertThat(child.process().isAlive()).as("writing").isTrue();
                throw new AssertionError("an assertion of the test fails here");
            }
        }).isInstanceOf(AssertionError.class).hasMessage("an assertion of the test fails here");
        assertThat(started[0].isAlive()).as("the writer after the failed test").isFalse();
    }

    @Test
    void aWriterHaltsByItselfWhenItsParentJvmDies() throws Exception {
        try (WriterChild parent = WriterChild.start(DyingParent.class, QUICK_JVM, dir.resolve("w.txt").toString())) {
            long pid;
            try (BufferedReader in = new BufferedReader(new InputStreamReader(parent.process().getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line = in.readLine();
                assertThat(line).as("the writer's pid from the parent").isNotNull().containsOnlyDigits();
                pid = Long.parseLong(line);
            }
            assertThat(parent.process().waitFor(60, TimeUnit.SECONDS)).as("the parent halted").isTrue();
            Optional<ProcessHandle> writer = ProcessHandle.of(pid);
            try {
                if (writer.isPresent()) {
                    writer.get().onExit().get(60, TimeUnit.SECONDS);
                }
                assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("writer %d after its parent died", pid)
                        .isNotEqualTo(Optional.of(true));
            } finally {
                writer.ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    private static void readReady(Process process) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = in.readLine();
        if (!"READY".equals(line)) {
            throw new AssertionError("the writer did not start: " + line);
        }
    }
}

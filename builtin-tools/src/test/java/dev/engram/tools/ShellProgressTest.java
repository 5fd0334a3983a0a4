package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shell_exec} reports what the command prints while it runs; the model gets only the result's end. */
class ShellProgressTest {
    @TempDir
    Path root;

    @Test
    void theCommandsOutputIsReportedAsProgressTaggedWithTheCall() {
        ToolRegistry registry = ToolRegistry.create().register(BuiltinTools.shell(Workspace.of(root),
                ShellOptions.unsandboxedHost("seq")));
        List<String> chunks = new CopyOnWriteArrayList<>();
        List<String> callIds = new CopyOnWriteArrayList<>();
        ToolContext context = ToolContext.builder().progressListener((call, chunk) -> {
            callIds.add(call.id());
            chunks.add(chunk);
        }).build();

        ToolResult r = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build()
                .execute(new ToolCall("call-seq", "shell_exec", "{\"command\":\"seq 1 3000\"}"), context);

        assertThat(r.content()).startsWith("exit code 0\n").endsWith("2999\n3000\n");
        assertThat(chunks).isNotEmpty();
        assertThat(callIds).containsOnly("call-seq");
        assertThat(String.join("", chunks)).endsWith("2999\n3000\n").doesNotContain("exit code");
    }

    @Test
    void aCharacterSplitBetweenTwoReadsIsReportedWhole() {
        byte[] text = "é€ ok\n".getBytes(StandardCharsets.UTF_8);
        InputStream oneByteAtATime = new ByteArrayInputStream(text) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1));
            }
        };
        List<String> chunks = new ArrayList<>();
        TailBuffer buffer = new TailBuffer(64);

        buffer.drain(oneByteAtATime, chunks::add);

        assertThat(String.join("", chunks)).isEqualTo("é€ ok\n");
        assertThat(buffer.text()).isEqualTo("é€ ok\n");
    }
}

package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.TestTools.Nothing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A tool that declares itself cheap and trusted ({@link DynamicTool#runsInline()}) runs on the caller's thread; every
 * other keeps its own thread, with its timeout.
 */
class InlineToolTest {

    /** A tool that notes the thread it ran on; inline or not as built. */
    private record Where(String name, boolean inline, Duration pause, AtomicReference<Thread> ranOn) implements AiTool<Nothing, String> {
        @Override
        public ToolInfo info() {
            return new ToolInfo(name, "Notes its thread.", SafetyTier.SIDE_EFFECTING, Duration.ofMillis(300),
                    Truncation.KEEP_HEAD);
        }

        @Override
        public Class<Nothing> inputType() {
            return Nothing.class;
        }

        @Override
        public boolean runsInline() {
            return inline;
        }

        @Override
        public String execute(Nothing input, ToolContext context) throws Exception {
            ranOn.set(Thread.currentThread());
            if (!pause.isZero()) {
                Thread.sleep(pause.toMillis());
            }
            if (name.startsWith("fail")) {
                throw new ToolException("No block labelled 'x'; list the blocks first.");
            }
            return "ran";
        }
    }

    private static ToolExecutor executor(AiTool<?, ?>... tools) {
        ToolRegistry registry = ToolRegistry.create();
        for (AiTool<?, ?> t : tools) {
            registry.register(t);
        }
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build();
    }

    @Test
    void anInlineToolRunsOnTheCallersThreadAndAnyOtherOnItsOwn() {
        AtomicReference<Thread> inline = new AtomicReference<>();
        AtomicReference<Thread> own = new AtomicReference<>();
        ToolExecutor executor = executor(new Where("cheap", true, Duration.ZERO, inline),
                new Where("other", false, Duration.ZERO, own));
        List<ToolResult> results = executor.executeAll(List.of(ToolCall.of("cheap", "{}"), ToolCall.of("other", "{}")),
                ToolContext.empty());
        assertThat(results).extracting(ToolResult::status).containsExactly(ToolStatus.SUCCESS, ToolStatus.SUCCESS);
        assertThat(results).extracting(ToolResult::content).containsExactly("ran", "ran");
        assertThat(inline.get()).isSameAs(Thread.currentThread());
        assertThat(own.get()).isNotSameAs(Thread.currentThread());
        assertThat(own.get().getName()).isEqualTo("engram-tool-other");
    }

    @Test
    void aToolThatMayBlockKeepsItsTimeoutAndAnInlineOneFinishes() {
        AtomicReference<Thread> slow = new AtomicReference<>();
        AtomicReference<Thread> inline = new AtomicReference<>();
        ToolExecutor executor = executor(new Where("slow", false, Duration.ofSeconds(30), slow),
                new Where("slowinline", true, Duration.ofMillis(400), inline));
        ToolResult timedOut = executor.execute(ToolCall.of("slow", "{}"), ToolContext.empty());
        assertThat(timedOut.status()).isEqualTo(ToolStatus.TIMED_OUT);
        assertThat(timedOut.content()).isEqualTo("Tool 'slow' timed out after 300 ms and was stopped.");
        ToolResult finished = executor.execute(ToolCall.of("slowinline", "{}"), ToolContext.empty());
        assertThat(finished.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(finished.content()).isEqualTo("ran");
        assertThat(inline.get()).isSameAs(Thread.currentThread());
    }

    @Test
    void anInlineToolsFailureIsTheSameResultAsOnItsOwnThread() {
        ToolExecutor executor = executor(new Where("failinline", true, Duration.ZERO, new AtomicReference<>()),
                new Where("failother", false, Duration.ZERO, new AtomicReference<>()));
        ToolResult inline = executor.execute(ToolCall.of("failinline", "{}"), ToolContext.empty());
        ToolResult other = executor.execute(ToolCall.of("failother", "{}"), ToolContext.empty());
        assertThat(inline.status()).isEqualTo(ToolStatus.TOOL_ERROR).isEqualTo(other.status());
        assertThat(inline.content()).isEqualTo("No block labelled 'x'; list the blocks first.").isEqualTo(other.content());
    }
}

package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.TestTools.Counting;
import dev.engram.framework.TestTools.Echo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ToolProgressTest {
    /** One progress report as the listener saw it. */
    record Report(String callId, String tool, String chunk) {
    }

    private static ToolContext listening(List<Report> reports) {
        return ToolContext.builder().progressListener((call, chunk) -> reports.add(new Report(call.id(), call.name(), chunk)))
                .build();
    }

    @Test
    void aCallsReportsReachTheListenerTaggedWithTheCallAndNeverTheResult() {
        ToolRegistry registry = ToolRegistry.create().register(Counting.of("build", Echo.class, SafetyTier.READ_ONLY,
                (in, ctx) -> {
                    ctx.progress().report("compiling " + in.text() + "\n");
                    ctx.progress().report("linking\n");
                    return "built";
                }));
        List<Report> reports = new CopyOnWriteArrayList<>();

        ToolResult r = ToolExecutor.builder(registry).build().execute(new ToolCall("c-7", "build", "{\"text\":\"app\"}"),
                listening(reports));

        assertThat(r.content()).isEqualTo("built");
        assertThat(reports).isNotEmpty().allSatisfy(rep -> {
            assertThat(rep.callId()).isEqualTo("c-7");
            assertThat(rep.tool()).isEqualTo("build");
        });
        assertThat(String.join("", reports.stream().map(Report::chunk).toList())).isEqualTo("compiling app\nlinking\n");
    }

    @Test
    void concurrentCallsReportUnderTheirOwnIds() {
        ToolRegistry registry = ToolRegistry.create().register(Counting.of("say", Echo.class, SafetyTier.READ_ONLY,
                (in, ctx) -> {
                    ctx.progress().report("from " + in.text());
                    return "ok";
                }));
        List<Report> reports = new CopyOnWriteArrayList<>();

        ToolExecutor.builder(registry).build().executeAll(List.of(new ToolCall("a", "say", "{\"text\":\"a\"}"),
                new ToolCall("b", "say", "{\"text\":\"b\"}")), listening(reports));

        assertThat(reports).containsExactlyInAnyOrder(new Report("a", "say", "from a"), new Report("b", "say", "from b"));
    }

    @Test
    void tinyReportsAreCoalescedIntoOnePerInterval() {
        ToolRegistry registry = ToolRegistry.create().register(Counting.of("chatty", Echo.class, SafetyTier.READ_ONLY,
                (in, ctx) -> {
                    for (int i = 0; i < 1000; i++) {
                        ctx.progress().report("x");
                    }
                    return "done";
                }));
        List<Report> reports = new CopyOnWriteArrayList<>();

        ToolExecutor.builder(registry).progressInterval(Duration.ofHours(1)).build()
                .execute(new ToolCall("c", "chatty", "{\"text\":\"\"}"), listening(reports));

        assertThat(reports).hasSize(1);
        assertThat(reports.getFirst().chunk()).isEqualTo("x".repeat(1000));
    }

    @Test
    void theCoalescerSendsOncePerIntervalKeepsTheEndOfAFloodAndDropsReportsAfterTheCall() {
        AtomicLong now = new AtomicLong();
        List<String> sent = new ArrayList<>();
        ProgressCoalescer c = new ProgressCoalescer(new ToolCall("c", "t", "{}"), (call, chunk) -> sent.add(chunk),
                100, now::get, 10);

        c.report("ab");
        c.report("cd");
        assertThat(sent).isEmpty();
        now.set(100);
        c.report("e");
        assertThat(sent).containsExactly("abcde");
        c.report("0123456789XYZ");
        now.set(150);
        c.flushIfDue();
        assertThat(sent).hasSize(1);
        now.set(200);
        c.flushIfDue();
        assertThat(sent).containsExactly("abcde", "[... 3 characters skipped]\n3456789XYZ");
        c.report("tail");
        c.close();
        c.report("late");
        c.close();
        assertThat(sent).containsExactly("abcde", "[... 3 characters skipped]\n3456789XYZ", "tail");
    }

    @Test
    void aListenerThatThrowsLosesTheReportNotTheCall() {
        ToolRegistry registry = ToolRegistry.create().register(Counting.of("build", Echo.class, SafetyTier.READ_ONLY,
                (in, ctx) -> {
                    ctx.progress().report("line\n");
                    return "built";
                }));
        ToolContext context = ToolContext.builder().progressListener((call, chunk) -> {
            throw new IllegalStateException("listener bug");
        }).build();

        ToolResult r = ToolExecutor.builder(registry).build().execute(new ToolCall("c", "build", "{\"text\":\"\"}"), context);

        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.content()).isEqualTo("built");
    }

    @Test
    void withoutAListenerAToolsReportsGoNowhere() {
        ToolRegistry registry = ToolRegistry.create().register(Counting.of("build", Echo.class, SafetyTier.READ_ONLY,
                (in, ctx) -> {
                    ctx.progress().report("line\n");
                    return ctx.progress() == ToolProgress.NONE ? "none" : "some";
                }));

        ToolResult r = ToolExecutor.builder(registry).build().execute(new ToolCall("c", "build", "{\"text\":\"\"}"),
                ToolContext.empty());

        assertThat(r.content()).isEqualTo("none");
    }

    @Test
    void theIntervalMustBePositive() {
        ToolExecutor.Builder b = ToolExecutor.builder(ToolRegistry.create());
        assertThatThrownBy(() -> b.progressInterval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("progress interval must be positive");
        assertThatThrownBy(() -> ToolContext.builder().progressListener(null)).isInstanceOf(NullPointerException.class);
    }
}

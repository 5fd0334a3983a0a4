package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.TestTools.Echo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ToolExecutorBatchTest {
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger maxSideEffectingOverlap = new AtomicInteger();

    private AiTool<Echo, String> readOnlyMeetingAt(CyclicBarrier barrier) {
        return AiTool.of("look", "Reads.", Echo.class, SafetyTier.READ_ONLY, (in, ctx) -> {
            events.add("start look " + in.text());
            try {
                barrier.await(5, TimeUnit.SECONDS);
            } catch (TimeoutException | BrokenBarrierException e) {
                return "alone " + in.text();
            }
            events.add("end look " + in.text());
            return "met " + in.text();
        });
    }

    private AiTool<Echo, String> sideEffecting(String name, SafetyTier tier) {
        return AiTool.of(name, "Writes.", Echo.class, tier, (in, ctx) -> {
            int now = running.incrementAndGet();
            maxSideEffectingOverlap.accumulateAndGet(now, Math::max);
            events.add("start " + name + " " + in.text());
            Thread.sleep(30);
            events.add("end " + name + " " + in.text());
            running.decrementAndGet();
            return name + " " + in.text();
        });
    }

    @Test
    void readOnlyCallsOfOneTurnOverlap() {
        CyclicBarrier barrier = new CyclicBarrier(3);
        ToolRegistry registry = ToolRegistry.create().register(readOnlyMeetingAt(barrier));
        ToolExecutor executor = ToolExecutor.builder(registry).build();
        List<ToolResult> results = executor.executeAll(List.of(
                new ToolCall("1", "look", "{\"text\":\"a\"}"),
                new ToolCall("2", "look", "{\"text\":\"b\"}"),
                new ToolCall("3", "look", "{\"text\":\"c\"}")), ToolContext.empty());
        // Each call waits at a barrier for the other two: they can only all pass if they ran at the same time.
        assertThat(results).extracting(ToolResult::content).containsExactly("met a", "met b", "met c");
        assertThat(results).extracting(ToolResult::callId).containsExactly("1", "2", "3");
    }

    @Test
    void sideEffectingCallsNeverOverlapAndKeepTheModelsOrder() {
        ToolRegistry registry = ToolRegistry.create()
                .register(sideEffecting("write", SafetyTier.SIDE_EFFECTING))
                .register(sideEffecting("exec", SafetyTier.PRIVILEGED));
        ToolExecutor executor = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build();
        List<ToolCall> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            calls.add(new ToolCall("c" + i, i % 2 == 0 ? "write" : "exec", "{\"text\":\"" + i + "\"}"));
        }
        List<ToolResult> results = executor.executeAll(calls, ToolContext.empty());
        assertThat(maxSideEffectingOverlap).hasValue(1);
        assertThat(results).extracting(ToolResult::content)
                .containsExactly("write 0", "exec 1", "write 2", "exec 3", "write 4", "exec 5");
        assertThat(events).containsExactly(
                "start write 0", "end write 0", "start exec 1", "end exec 1", "start write 2", "end write 2",
                "start exec 3", "end exec 3", "start write 4", "end write 4", "start exec 5", "end exec 5");
    }

    @Test
    void aSideEffectingCallSeparatesTheReadOnlyGroupsAroundIt() {
        CyclicBarrier barrier = new CyclicBarrier(2);
        ToolRegistry registry = ToolRegistry.create()
                .register(readOnlyMeetingAt(barrier))
                .register(sideEffecting("write", SafetyTier.SIDE_EFFECTING));
        ToolExecutor executor = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build();
        List<ToolResult> results = executor.executeAll(List.of(
                new ToolCall("1", "look", "{\"text\":\"a\"}"),
                new ToolCall("2", "look", "{\"text\":\"b\"}"),
                new ToolCall("3", "write", "{\"text\":\"w\"}"),
                new ToolCall("4", "look", "{\"text\":\"c\"}"),
                new ToolCall("5", "look", "{\"text\":\"d\"}")), ToolContext.empty());
        assertThat(results).extracting(ToolResult::content).containsExactly("met a", "met b", "write w", "met c", "met d");
        int write = events.indexOf("start write w");
        assertThat(events.subList(0, write)).containsExactlyInAnyOrder("start look a", "start look b", "end look a", "end look b");
        assertThat(events.subList(write, write + 2)).containsExactly("start write w", "end write w");
    }

    @Test
    void errorsInABatchComeBackInPlace() {
        ToolRegistry registry = ToolRegistry.create().register(sideEffecting("write", SafetyTier.SIDE_EFFECTING));
        ToolExecutor executor = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build();
        List<ToolResult> results = executor.executeAll(List.of(
                new ToolCall("1", "write", "{\"text\":\"a\"}"),
                new ToolCall("2", "missing", "{}"),
                new ToolCall("3", "write", "{oops"),
                new ToolCall("4", "write", "{\"text\":\"b\"}")), ToolContext.empty());
        assertThat(results).extracting(ToolResult::status).containsExactly(
                ToolStatus.SUCCESS, ToolStatus.UNKNOWN_TOOL, ToolStatus.INVALID_ARGUMENTS, ToolStatus.SUCCESS);
    }

    @Test
    void aSlowReadOnlyCallTimesOutWithoutHoldingUpItsGroup() {
        ToolRegistry registry = ToolRegistry.create()
                .register(new TestTools.Counting<>("slow", Echo.class, SafetyTier.READ_ONLY, Duration.ofMillis(150),
                        Truncation.KEEP_HEAD, null, (in, ctx) -> {
                            Thread.sleep(10_000);
                            return "late";
                        }))
                .register(AiTool.of("fast", "Fast.", Echo.class, SafetyTier.READ_ONLY, (in, ctx) -> "fast"));
        List<ToolResult> results = ToolExecutor.builder(registry).build().executeAll(List.of(
                ToolCall.of("slow", "{\"text\":\"x\"}"), ToolCall.of("fast", "{\"text\":\"y\"}")), ToolContext.empty());
        assertThat(results).extracting(ToolResult::status).containsExactly(ToolStatus.TIMED_OUT, ToolStatus.SUCCESS);
    }

    @Test
    void emptyBatchGivesNoResults() {
        assertThat(ToolExecutor.builder(ToolRegistry.create()).build().executeAll(List.of(), ToolContext.empty())).isEmpty();
    }
}

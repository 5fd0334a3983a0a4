package dev.engram.bench;

import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolProgress;
import dev.engram.framework.ToolRegistry;
import dev.engram.tools.CodeLanguage;
import dev.engram.tools.CodeRun;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.ProgramTools;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * What a tool call costs from a code-mode program (a stub call: a frame on the program's standard output, the tool
 * pipeline in the JVM, one JSON line back) next to the same call made directly through the pipeline, in the same run,
 * with the same trivial tool ({@code add}). The program times each of its calls itself; the direct calls are timed one
 * by one after an untimed warm-up. Also: what starting an empty program in the sandbox costs.
 */
public final class CodeModeOverhead {
    /** The trivial tool's input. */
    public record Add(int a, int b) {
    }

    private CodeModeOverhead() {
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length == 2 && args[0].equals("--calls") ? Integer.parseInt(args[1]) : 2_000;
        ToolRegistry registry = ToolRegistry.create().register(AiTool.of("add", "Adds two integers.", Add.class,
                SafetyTier.READ_ONLY, (in, ctx) -> in.a() + in.b()));
        ToolExecutor executor = ToolExecutor.builder(registry).approvalMode(ApprovalMode.AUTO).build();
        ToolContext context = ToolContext.builder().userId("u").agentId("a").sessionId("s").callId("call_bench").build();
        ToolCall call = new ToolCall("call-1", "add", "{\"a\": 40, \"b\": 2}");

        long[] direct = new long[calls * 10];
        for (int i = 0; i < 20_000; i++) {
            executor.execute(call, context);
        }
        for (int i = 0; i < direct.length; i++) {
            long t = System.nanoTime();
            executor.execute(call, context);
            direct[i] = System.nanoTime() - t;
        }

        CodeRunner runner = CodeRunner.sandboxed(Duration.ofMinutes(5), CodeRunner.defaultLimits(), 1024 * 1024);
        ProgramTools tools = ProgramTools.of(executor);
        long[] start = new long[20];
        for (int i = 0; i < start.length; i++) {
            CodeRun empty = runner.run(CodeLanguage.PYTHON, "pass", tools, context);
            start[i] = empty.duration().toNanos();
        }
        String python = """
                import time
                for _ in range(200):
                    add(a=40, b=2)
                samples = []
                for _ in range(%d):
                    t = time.perf_counter_ns()
                    add(a=40, b=2)
                    samples.append(time.perf_counter_ns() - t)
                print(" ".join(map(str, samples)))
                """.formatted(calls);
        String javascript = """
                for (let i = 0; i < 200; i++) await add({a: 40, b: 2});
                const samples = [];
                for (let i = 0; i < %d; i++) {
                  const t = process.hrtime.bigint();
                  await add({a: 40, b: 2});
                  samples.push(Number(process.hrtime.bigint() - t));
                }
                console.log(samples.join(' '));
                """.formatted(calls);
        long[] py = samples(runner.run(CodeLanguage.PYTHON, python, tools, context));
        long[] js = samples(runner.run(CodeLanguage.JAVASCRIPT, javascript, tools, context));

        System.out.printf(Locale.ROOT, "microseconds per call of add (p50, p90, p99)%n");
        System.out.printf(Locale.ROOT, "direct, through the pipeline  %8.1f %8.1f %8.1f  (%d calls)%n", p(direct, 0.5),
                p(direct, 0.9), p(direct, 0.99), direct.length);
        System.out.printf(Locale.ROOT, "stub call from Python         %8.1f %8.1f %8.1f  (%d calls)%n", p(py, 0.5), p(py, 0.9),
                p(py, 0.99), py.length);
        System.out.printf(Locale.ROOT, "stub call from JavaScript     %8.1f %8.1f %8.1f  (%d calls)%n", p(js, 0.5), p(js, 0.9),
                p(js, 0.99), js.length);
        System.out.printf(Locale.ROOT, "an empty Python program in the sandbox, start to exit: p50 %.1f ms%n", p(start, 0.5) / 1000);
    }

    private static long[] samples(CodeRun run) {
        if (!run.succeeded()) {
            throw new IllegalStateException("the benchmark program failed: " + run.stderr());
        }
        return Arrays.stream(run.stdout().strip().split(" ")).mapToLong(Long::parseLong).toArray();
    }

    /** The {@code q} quantile in microseconds. */
    private static double p(long[] nanos, double q) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1000.0;
    }
}

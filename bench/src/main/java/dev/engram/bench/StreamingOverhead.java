package dev.engram.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * What streaming adds to a step: {@link AgentStepBenchmark}'s {@code step} and {@code streamedStep} on
 * the same agent, interleaved (ABBA order, so that neither always runs first) after an untimed warm-up,
 * each invocation timed on its own; p50 and p90 of both and their ratio. Interleaving matters on this
 * VM: its speed drifts by tens of percent within minutes, so two JMH benchmarks run one after the other
 * can differ by more than what is measured here. Run:
 * {@code $JAVA -cp bench/target/benchmarks.jar dev.engram.bench.StreamingOverhead [--rounds N]}.
 */
public final class StreamingOverhead {
    private static final int WARMUP_ROUNDS = 2_000;

    private StreamingOverhead() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length == 2 && args[0].equals("--rounds") ? Integer.parseInt(args[1]) : 5_000;
        AgentStepBenchmark bench = new AgentStepBenchmark();
        bench.setUp();
        try {
            long[] sent = new long[rounds];
            long[] streamed = new long[rounds];
            for (int i = -WARMUP_ROUNDS; i < rounds; i++) {
                boolean streamFirst = Math.floorMod(i, 2) == 1;
                long a = streamFirst ? timeStreamed(bench) : timeSent(bench);
                long b = streamFirst ? timeSent(bench) : timeStreamed(bench);
                if (i >= 0) {
                    sent[i] = streamFirst ? b : a;
                    streamed[i] = streamFirst ? a : b;
                }
            }
            double p50Sent = percentile(sent, 0.5);
            double p50Streamed = percentile(streamed, 0.5);
            System.out.printf(Locale.ROOT, "%d rounds after %d untimed, microseconds%n", rounds, WARMUP_ROUNDS);
            System.out.printf(Locale.ROOT, "step          p50 %8.1f  p90 %8.1f%n", p50Sent, percentile(sent, 0.9));
            System.out.printf(Locale.ROOT, "streamedStep  p50 %8.1f  p90 %8.1f%n", p50Streamed, percentile(streamed, 0.9));
            System.out.printf(Locale.ROOT, "streaming adds %.1f %% at the median%n", 100 * (p50Streamed / p50Sent - 1));
        } finally {
            bench.tearDown();
        }
    }

    private static long timeSent(AgentStepBenchmark bench) {
        bench.trim();
        long t0 = System.nanoTime();
        bench.step();
        return System.nanoTime() - t0;
    }

    private static long timeStreamed(AgentStepBenchmark bench) {
        bench.trim();
        long t0 = System.nanoTime();
        bench.streamedStep();
        return System.nanoTime() - t0;
    }

    private static double percentile(long[] values, double p) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.round(p * (sorted.length - 1)))] / 1_000.0;
    }
}

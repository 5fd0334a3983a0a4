package dev.engram.tools;

import dev.engram.framework.ToolProgress;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * Runs one process of {@code shell_exec} or a Python tool to its end, within bounds: its standard input is
 * given and closed, its output kept only up to a capacity ({@link TailBuffer}: the end of it), and the whole
 * process tree killed at the timeout. Memory stays bounded whatever the process prints. How many processes a
 * sandbox may start is the kernel's to enforce ({@code RLIMIT_NPROC}, set inside with {@code prlimit}): the
 * sandbox never runs as root on the host ({@link SandboxUser}), the one user the kernel exempts from it.
 */
final class BoundedProcess {
    /** Why the process ended. */
    enum Stop {
        /** It exited on its own (or was killed by a signal from inside, such as its CPU time limit). */
        EXITED,
        /** It ran past its timeout and was killed with its children. */
        TIMED_OUT
    }

    /**
     * How a run ended.
     *
     * @param stop     why it ended
     * @param exitCode its exit code when it exited
     * @param output   standard output (with standard error when they were merged)
     * @param errors   standard error when kept apart; empty otherwise
     */
    record Outcome(Stop stop, OptionalInt exitCode, TailBuffer output, TailBuffer errors) {
    }

    private BoundedProcess() {
    }

    /**
     * Starts {@code pb} and waits for it.
     *
     * @param input         bytes written to its standard input, which is then closed
     * @param outputBytes   bytes kept of each output stream, from the end
     * @param mergeErrors   whether standard error goes with standard output
     * @throws IOException if the process cannot start
     */
    static Outcome run(ProcessBuilder pb, byte[] input, Duration timeout, int outputBytes, boolean mergeErrors)
            throws IOException, InterruptedException {
        return run(pb, input, timeout, outputBytes, mergeErrors, ToolProgress.NONE);
    }

    /**
     * {@link #run(ProcessBuilder, byte[], Duration, int, boolean)}, reporting its standard output to {@code progress}
     * as the process prints it (its standard error too when merged).
     */
    static Outcome run(ProcessBuilder pb, byte[] input, Duration timeout, int outputBytes, boolean mergeErrors,
            ToolProgress progress) throws IOException, InterruptedException {
        pb.redirectErrorStream(mergeErrors);
        Process process = pb.start();
        TailBuffer output = new TailBuffer(outputBytes);
        TailBuffer errors = new TailBuffer(mergeErrors ? 1 : outputBytes);
        Thread out = Thread.ofVirtual().start(() -> output.drain(process.getInputStream(), progress));
        Thread err = mergeErrors ? null : Thread.ofVirtual().start(() -> errors.drain(process.getErrorStream()));
        Stop stop = null;
        try {
            // Written on a thread of its own: a process that does not read its input (yet) must not hold this
            // thread past the timeout once the input fills the pipe.
            Thread.ofVirtual().start(() -> {
                try (var stdin = process.getOutputStream()) {
                    stdin.write(input);
                } catch (IOException e) {
                    // it exited (or was killed) without reading its input; its exit code says what happened
                }
            });
            stop = process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS) ? Stop.EXITED : Stop.TIMED_OUT;
        } finally {
            if (process.isAlive() || stop != Stop.EXITED) {
                killTree(process);
            }
        }
        out.join(5_000);
        if (err != null) {
            err.join(5_000);
        }
        OptionalInt code = stop == Stop.EXITED ? OptionalInt.of(process.exitValue()) : OptionalInt.empty();
        return new Outcome(stop, code, output, errors);
    }

    /**
     * Kills the process and everything it started. Killing a sandbox's outer {@code bwrap} ends its PID
     * namespace (and so every process in it) at once; the descendants are killed too for the host backend.
     */
    static void killTree(Process process) {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        process.descendants().forEach(ProcessHandle::destroyForcibly);
    }
}

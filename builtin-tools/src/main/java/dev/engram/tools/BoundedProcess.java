package dev.engram.tools;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * Runs one process of {@code shell_exec} or a Python tool to its end, within bounds: its standard input is
 * given and closed, its output kept only up to a capacity ({@link TailBuffer}: the end of it), the whole
 * process tree killed at the timeout, and, for a sandbox, killed too as soon as it holds more processes than
 * allowed (a fork bomb). Memory stays bounded whatever the process prints.
 */
final class BoundedProcess {
    /**
     * How often the process count is looked at: reading {@code /proc} costs a few milliseconds on a small virtual
     * machine, so a shorter interval would take a good part of a core per running command.
     */
    private static final long WATCH_MILLIS = 100;

    /** Why the process ended. */
    enum Stop {
        /** It exited on its own (or was killed by a signal from inside, such as its CPU time limit). */
        EXITED,
        /** It ran past its timeout and was killed with its children. */
        TIMED_OUT,
        /** It started more processes than allowed and was killed with its children. */
        TOO_MANY_PROCESSES
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
     * @param maxProcesses  the most processes the tree may hold (the sandbox's two bubblewrap processes aside);
     *                      0 to not watch
     * @throws IOException if the process cannot start
     */
    static Outcome run(ProcessBuilder pb, byte[] input, Duration timeout, int outputBytes, boolean mergeErrors,
            int maxProcesses) throws IOException, InterruptedException {
        pb.redirectErrorStream(mergeErrors);
        Process process = pb.start();
        TailBuffer output = new TailBuffer(outputBytes);
        TailBuffer errors = new TailBuffer(mergeErrors ? 1 : outputBytes);
        Thread out = Thread.ofVirtual().start(() -> output.drain(process.getInputStream()));
        Thread err = mergeErrors ? null : Thread.ofVirtual().start(() -> errors.drain(process.getErrorStream()));
        Stop stop = null;
        try {
            long deadline = System.nanoTime() + timeout.toNanos();
            // Written on a thread of its own: a process that does not read its input (yet) must not hold this
            // thread past the timeout once the input fills the pipe.
            Thread.ofVirtual().start(() -> {
                try (var stdin = process.getOutputStream()) {
                    stdin.write(input);
                } catch (IOException e) {
                    // it exited (or was killed) without reading its input; its exit code says what happened
                }
            });
            while (stop == null) {
                long left = deadline - System.nanoTime();
                if (process.waitFor(Math.max(0, Math.min(left, TimeUnit.MILLISECONDS.toNanos(WATCH_MILLIS))),
                        TimeUnit.NANOSECONDS)) {
                    stop = Stop.EXITED;
                } else if (System.nanoTime() - deadline >= 0) {
                    stop = Stop.TIMED_OUT;
                } else if (maxProcesses > 0 && processesUnder(process, maxProcesses + 3) > maxProcesses + 2) {
                    stop = Stop.TOO_MANY_PROCESSES;
                }
            }
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
     * How many processes {@code process} has below it, counting no further than {@code cap}: a walk of the
     * kernel's {@code /proc/PID/task/TID/children} lists from the process down, which reads only its own tree
     * ({@link ProcessHandle#descendants()} reads every process of the machine, ten times slower); that where
     * the kernel has no such lists.
     */
    static int processesUnder(Process process, int cap) {
        if (!Files.exists(Path.of("/proc/" + process.pid() + "/task/" + process.pid() + "/children"))) {
            return (int) process.descendants().limit(cap).count();
        }
        ArrayDeque<Long> todo = new ArrayDeque<>(List.of(process.pid()));
        int count = 0;
        while (!todo.isEmpty() && count < cap) {
            long pid = todo.pop();
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
                for (Path task : tasks) {
                    String children = Files.readString(task.resolve("children")).strip();
                    if (!children.isEmpty()) {
                        for (String child : children.split(" ")) {
                            todo.push(Long.parseLong(child));
                            count++;
                        }
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // the process ended meanwhile: it no longer counts
            }
        }
        return count;
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

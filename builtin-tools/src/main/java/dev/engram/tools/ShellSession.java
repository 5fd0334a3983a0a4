package dev.engram.tools;

import dev.engram.framework.ToolProgress;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * One long-lived shell in the bubblewrap sandbox, for one agent's session: its working directory and variables
 * carry over from one command to the next. Each command is framed with a fresh random nonce: its text goes in a
 * here-document whose end marker holds the nonce (so no text of the command can end it early), runs through
 * {@code eval} with its standard input from {@code /dev/null} (so it cannot read the frames that follow), and is
 * followed by a line holding the nonce and its exit status, which the reader waits for. Standard error is merged
 * into standard output. Runs one command at a time; {@link ShellSessions} serialises the callers.
 */
final class ShellSession {
    /** Bash keeps running after a syntax error in {@code eval}; dash ends, which is reported as the shell ending. */
    private static final List<String> SHELL = Files.isExecutable(Path.of("/bin/bash"))
            ? List.of("/bin/bash", "--noprofile", "--norc") : List.of("/bin/sh");
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Why a command's run ended. */
    enum Stop {
        /** The command finished; the shell waits for the next one. */
        FINISHED,
        /** The command ran past its timeout; the shell was killed with everything it started. */
        TIMED_OUT,
        /** The shell itself ended (the command ran {@code exit}, or {@code exec} replaced the shell). */
        SHELL_ENDED
    }

    /**
     * How a command ended.
     *
     * @param stop     why
     * @param exitCode the command's exit status (or the shell's, when it ended); empty on timeout
     * @param output   its standard output and error, the end of it
     */
    record Outcome(Stop stop, OptionalInt exitCode, TailBuffer output) {
    }

    private final Process process;
    private final InputStream out;
    private final OutputStream in;
    private volatile Instant lastUsed;
    /** Callers that hold or wait for this session; guarded by the owning {@link ShellSessions}. */
    int users;

    private ShellSession(Process process, Instant now) {
        this.process = process;
        this.out = process.getInputStream();
        this.in = process.getOutputStream();
        this.lastUsed = now;
    }

    /**
     * Starts a shell in {@code sandbox} at the workspace root, with only the {@code environment} names of this JVM's
     * environment, git's hardening and the sandbox's HOME.
     */
    static ShellSession start(Bubblewrap sandbox, Workspace workspace, SandboxLimits limits, java.util.Set<String> environment,
            Instant now) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(sandbox.wrap(workspace, workspace.root(), SHELL, limits));
        pb.directory(workspace.root().toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> !environment.contains(k));
        env.putAll(HostCommandPolicy.GIT_ENVIRONMENT);
        env.put("HOME", Bubblewrap.HOME);
        pb.redirectErrorStream(true);
        return new ShellSession(pb.start(), now);
    }

    Instant lastUsed() {
        return lastUsed;
    }

    /** Marks the session used at {@code now}: its idle time counts from there. */
    void touch(Instant now) {
        lastUsed = now;
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The process this JVM started and every process under it, for tests that check nothing is left running. */
    List<ProcessHandle> processes() {
        return Stream.concat(Stream.of(process.toHandle()), process.descendants()).toList();
    }

    /** Kills the shell and everything it started (its sandbox's PID namespace ends with it). */
    void kill() {
        BoundedProcess.killTree(process);
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs one command line: first {@code cd} to {@code cwd} when given, then the line; reports its output to
     * {@code progress} as it comes and keeps its last {@code outputBytes}. On timeout the session is killed.
     */
    Outcome run(String command, Optional<Path> cwd, Duration timeout, int outputBytes, ToolProgress progress, Instant now)
            throws IOException, InterruptedException {
        lastUsed = now;
        String nonce = HexFormat.of().formatHex(randomBytes());
        String end = "__ENGRAM_END_" + nonce;
        String exit = "__ENGRAM_EXIT_" + nonce;
        String frame = "IFS= read -r -d '' __engram_cmd <<'" + end + "' || true\n" + command + "\n" + end + "\n"
                + cwd.map(dir -> "cd -- " + quote(dir.toString()) + " && ").orElse("")
                + "eval \"$__engram_cmd\" </dev/null; builtin printf '\\n%s %d\\n' " + exit + " \"$?\"\n";
        TailBuffer output = new TailBuffer(outputBytes);
        FutureTask<Outcome> reading = new FutureTask<>(() -> read(("\n" + exit + " ").getBytes(StandardCharsets.US_ASCII),
                output, progress));
        Thread.ofVirtual().name("engram-shell-session-reader").start(reading);
        try {
            in.write(frame.getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            // the shell is gone: the reader sees the end of its output and says so
        }
        try {
            return reading.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            kill();
            reading.cancel(true);
            return new Outcome(Stop.TIMED_OUT, OptionalInt.empty(), output);
        } catch (ExecutionException e) {
            kill();
            throw new IOException("Reading the shell session's output failed: " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            kill();
            throw e;
        }
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return b;
    }

    /**
     * Reads until the exit line ({@code marker}, digits, newline), passing everything before it on; at the end of the
     * stream the shell has ended. Holds back only an end that could begin the marker (and an unfinished UTF-8
     * character), so that a marker split across reads is still found and the rest is reported at once.
     */
    private Outcome read(byte[] marker, TailBuffer output, ToolProgress progress) throws IOException, InterruptedException {
        byte[] pending = new byte[16_384 + marker.length + 16];
        int size = 0;
        byte[] buf = new byte[16_384];
        while (true) {
            int n = out.read(buf);
            if (n < 0) {
                pass(pending, size, output, progress);
                int status = process.waitFor(5, TimeUnit.SECONDS) ? process.exitValue() : -1;
                return new Outcome(Stop.SHELL_ENDED, OptionalInt.of(status), output);
            }
            if (size + n > pending.length) {
                pending = java.util.Arrays.copyOf(pending, size + n);
            }
            System.arraycopy(buf, 0, pending, size, n);
            size += n;
            int at = indexOf(pending, size, marker);
            if (at >= 0) {
                int digits = at + marker.length;
                int newline = digits;
                while (newline < size && pending[newline] != '\n') {
                    newline++;
                }
                if (newline == size) {
                    continue; // the status is still coming
                }
                pass(pending, at, output, progress);
                int status = Integer.parseInt(new String(pending, digits, newline - digits, StandardCharsets.US_ASCII).strip());
                return new Outcome(Stop.FINISHED, OptionalInt.of(status), output);
            }
            int cut = size - heldBack(pending, size, marker);
            while (cut > 0 && cut < size && (pending[cut] & 0xC0) == 0x80) {
                cut--; // do not split a character between two progress reports
            }
            pass(pending, cut, output, progress);
            System.arraycopy(pending, cut, pending, 0, size - cut);
            size -= cut;
        }
    }

    /** How many bytes at the end could begin the marker, and so wait for the next read. */
    private static int heldBack(byte[] bytes, int size, byte[] marker) {
        for (int k = Math.min(size, marker.length - 1); k > 0; k--) {
            if (java.util.Arrays.equals(bytes, size - k, size, marker, 0, k)) {
                return k;
            }
        }
        return 0;
    }

    private static void pass(byte[] bytes, int length, TailBuffer output, ToolProgress progress) {
        if (length == 0) {
            return;
        }
        output.append(bytes, 0, length);
        progress.report(new String(bytes, 0, length, StandardCharsets.UTF_8));
    }

    private static int indexOf(byte[] haystack, int size, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= size; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** A single-quoted shell word. */
    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}

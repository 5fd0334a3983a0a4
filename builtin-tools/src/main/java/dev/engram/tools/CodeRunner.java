package dev.engram.tools;

import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolProgress;
import dev.engram.framework.ToolResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;
import tools.jackson.core.json.JsonWriteFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one code runner of {@code run_code} and code mode's {@code execute_code}: a Python 3 or JavaScript (Node.js)
 * program, run as a process in the bubblewrap sandbox ({@link Bubblewrap}: no network, no capability, nothing of the
 * host but {@code /usr} read-only, a private bounded {@code /tmp} holding {@code HOME}), under {@link SandboxLimits}
 * (memory, processes, file size, CPU time), a wall-clock timeout, and an output limit: the whole process tree is
 * killed at the timeout or once the program printed more than the limit. Of its output only the end is kept
 * ({@link #KEPT_BYTES} of each stream), and what it prints is reported live to the call's {@link ToolProgress}.
 *
 * <p>In code mode the program also gets a stub for each of the agent's tools ({@link ProgramTools}); a stub call
 * goes back to the JVM over the program's own standard output and input (a frame marked with this run's nonce, one
 * JSON line back), and through the same tool pipeline as the model's direct calls. Nothing else leaves the sandbox.
 *
 * <p>Without bubblewrap (or, for a root JVM, {@code setpriv}) there is no runner: programs never run unsandboxed.
 */
public final class CodeRunner {
    /** Bytes kept of a program's standard output and of its standard error, each. */
    public static final int KEPT_BYTES = 64 * 1024;
    /** The longest tool-call frame a program may write: 1 MiB. */
    private static final int MAX_FRAME = 1024 * 1024;
    private static final long MIB = 1024L * 1024;
    /** Reads a program's frames and tool results; writes answers in ASCII, so that the program reads them as Latin-1. */
    private static final JsonMapper JSON = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private final Bubblewrap sandbox;
    private final Map<CodeLanguage, Path> interpreters;
    private final Duration timeout;
    private final SandboxLimits limits;
    private final long outputLimitBytes;

    private CodeRunner(Bubblewrap sandbox, Map<CodeLanguage, Path> interpreters, Duration timeout, SandboxLimits limits,
            long outputLimitBytes) {
        this.sandbox = sandbox;
        this.interpreters = interpreters;
        this.timeout = timeout;
        this.limits = limits;
        this.outputLimitBytes = outputLimitBytes;
    }

    /**
     * The limits of a program by default: 1 GiB of address space per process (Node.js starts in it), 32 processes,
     * files up to 16 MiB, 30 s of CPU time per process and a 64 MiB {@code /tmp}.
     */
    public static SandboxLimits defaultLimits() {
        return new SandboxLimits(1024 * MIB, 32, 16 * MIB, 30, 64 * MIB);
    }

    /** A runner with a 30-second timeout, {@link #defaultLimits()} and a 1 MiB output limit. */
    public static CodeRunner sandboxed() {
        return sandboxed(Duration.ofSeconds(30), defaultLimits(), MIB);
    }

    /**
     * A runner of Python and JavaScript programs in the bubblewrap sandbox, with the {@code python3} and {@code node}
     * found under {@code /usr} (the languages whose interpreter is missing are refused, saying what to install).
     *
     * @param timeout          the wall-clock time of one program, the tool calls it makes included
     * @param limits           the sandbox's limits
     * @param outputLimitBytes how much a program may print (both streams together) before it is killed; at least 1 KiB
     * @throws IllegalStateException without bubblewrap ({@code apt-get install bubblewrap util-linux}), for a root JVM
     *                               without {@code setpriv}, or with neither {@code python3} nor {@code node} under /usr
     */
    public static CodeRunner sandboxed(Duration timeout, SandboxLimits limits, long outputLimitBytes) {
        return of(timeout, limits, outputLimitBytes, Bubblewrap.find());
    }

    static CodeRunner of(Duration timeout, SandboxLimits limits, long outputLimitBytes, Optional<Bubblewrap> bwrap) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        Objects.requireNonNull(limits, "limits must not be null");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("code timeout must be positive, got " + timeout);
        }
        if (outputLimitBytes < 1024) {
            throw new IllegalArgumentException("code output limit must be at least 1024 bytes, got " + outputLimitBytes);
        }
        if (bwrap.isEmpty()) {
            throw new IllegalStateException("Code runs only in the bubblewrap sandbox, and bwrap is not installed (or "
                    + "/usr/bin/prlimit is missing): install them (" + Bubblewrap.INSTALL + ") or leave code execution off. "
                    + "Programs never run unsandboxed on the host.");
        }
        bwrap.get().user().refusal().ifPresent(why -> {
            throw new IllegalStateException("Code runs only in the bubblewrap sandbox. " + why);
        });
        Map<CodeLanguage, Path> found = new EnumMap<>(CodeLanguage.class);
        for (CodeLanguage l : CodeLanguage.values()) {
            Bubblewrap.programUnderUsr(l.interpreter()).ifPresent(p -> found.put(l, p));
        }
        if (found.isEmpty()) {
            throw new IllegalStateException("The code runner needs python3 or node under /usr, where the sandbox can see "
                    + "them (apt-get install python3 nodejs).");
        }
        return new CodeRunner(bwrap.get(), Map.copyOf(found), timeout, limits, outputLimitBytes);
    }

    /** The languages this runner has an interpreter for. */
    public Set<CodeLanguage> languages() {
        return Set.copyOf(interpreters.keySet());
    }

    /** The wall-clock timeout of one program. */
    public Duration timeout() {
        return timeout;
    }

    /**
     * Runs {@code code} with no tool stubs ({@code run_code}).
     *
     * @throws ToolException for empty code or a language without interpreter here
     */
    public CodeRun run(CodeLanguage language, String code, ToolProgress progress) throws IOException, InterruptedException {
        return run(language, code, Optional.empty(), ToolContext.empty(), progress);
    }

    /**
     * Runs {@code code} with a stub for each of {@code tools}' definitions; each stub call goes to
     * {@link ProgramTools#call} with {@code context} (its call id {@code code<N>_} and the program's call id).
     *
     * @throws ToolException for empty code or a language without interpreter here
     */
    public CodeRun run(CodeLanguage language, String code, ProgramTools tools, ToolContext context)
            throws IOException, InterruptedException {
        return run(language, code, Optional.of(tools), context, context.progress());
    }

    private CodeRun run(CodeLanguage language, String code, Optional<ProgramTools> tools, ToolContext context,
            ToolProgress progress) throws IOException, InterruptedException {
        Objects.requireNonNull(language, "language must not be null");
        if (code == null || code.isBlank()) {
            throw new ToolException("code is empty; write the program to run.");
        }
        Path interpreter = interpreters.get(language);
        if (interpreter == null) {
            throw new ToolException(language.names().getFirst() + " cannot run here: its interpreter is not installed ("
                    + (language == CodeLanguage.PYTHON ? "apt-get install python3" : "apt-get install nodejs")
                    + "). Use " + interpreters.keySet().iterator().next().names().getFirst() + ".");
        }
        List<ToolDefinition> stubs = tools.map(ProgramTools::definitions).orElse(List.of());
        String nonce = UUID.randomUUID().toString().replace("-", "");
        Path dir = Files.createTempDirectory("engram-code-");
        long start = System.nanoTime();
        try {
            List<String> command;
            if (language == CodeLanguage.PYTHON) {
                Files.writeString(dir.resolve("program.py"), code);
                Files.writeString(dir.resolve("driver.py"), CodeStubs.pythonDriver(stubs));
                command = List.of(interpreter.toString(), "-I", "-u", "driver.py", nonce);
            } else {
                Files.writeString(dir.resolve("program.js"), CodeStubs.javascriptProgram(stubs, code));
                command = List.of(interpreter.toString(), "--max-old-space-size=" + Math.max(32, limits.addressSpaceBytes() / MIB / 2),
                        "program.js", nonce);
            }
            giveToSandbox(dir);
            ProcessBuilder pb = new ProcessBuilder(sandbox.wrap(Workspace.builder(dir).readOnly().build(), dir, command, limits))
                    .directory(dir.toFile());
            Map<String, String> env = pb.environment();
            env.keySet().removeIf(k -> !k.equals("PATH") && !k.equals("LANG"));
            env.put("HOME", Bubblewrap.HOME);
            return execute(pb, nonce, tools, context, progress, start);
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The program's directory and files, the sandbox's user's for a root JVM (whose sandbox is uid 65534). */
    private void giveToSandbox(Path dir) throws IOException {
        SandboxUser user = sandbox.user();
        if (user.dropsRoot()) {
            try (var paths = Files.list(dir)) {
                for (Path p : Stream.concat(Stream.of(dir), paths).toList()) {
                    Files.setAttribute(p, "unix:uid", user.uid());
                    Files.setAttribute(p, "unix:gid", user.gid());
                }
            }
        }
    }

    private CodeRun execute(ProcessBuilder pb, String nonce, Optional<ProgramTools> tools, ToolContext context,
            ToolProgress progress, long start) throws IOException, InterruptedException {
        Process process = pb.start();
        TailBuffer stdout = new TailBuffer(KEPT_BYTES);
        TailBuffer stderr = new TailBuffer(KEPT_BYTES);
        AtomicLong printed = new AtomicLong();
        AtomicInteger calls = new AtomicInteger();
        boolean[] overLimit = {false};
        Output sink = (buffer, text) -> {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            buffer.append(bytes);
            progress.report(text);
            if (printed.addAndGet(bytes.length) > outputLimitBytes) {
                synchronized (overLimit) {
                    overLimit[0] = true;
                }
                BoundedProcess.killTree(process);
            }
        };
        Channel channel = new Channel(nonce, process.getOutputStream(), tools, context, calls);
        Thread out = Thread.ofVirtual().start(() -> channel.read(process.getInputStream(), text -> sink.write(stdout, text)));
        Thread err = Thread.ofVirtual().start(() -> readText(process.getErrorStream(), text -> sink.write(stderr, text)));
        CodeRun.Stop stop = null;
        try {
            stop = process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS) ? CodeRun.Stop.EXITED : CodeRun.Stop.TIMED_OUT;
        } finally {
            if (process.isAlive() || stop != CodeRun.Stop.EXITED) {
                BoundedProcess.killTree(process);
            }
            channel.close();
        }
        out.join(5_000);
        err.join(5_000);
        synchronized (overLimit) {
            if (overLimit[0]) {
                stop = CodeRun.Stop.OUTPUT_LIMIT;
            }
        }
        OptionalInt code = stop == CodeRun.Stop.EXITED ? OptionalInt.of(process.exitValue()) : OptionalInt.empty();
        return new CodeRun(stop, code, stdout.text(), stderr.text(), calls.get(), Duration.ofNanos(System.nanoTime() - start));
    }

    /** Where decoded output goes. */
    private interface Output {
        void write(TailBuffer buffer, String text);
    }

    private static void readText(InputStream in, Consumer<String> sink) {
        char[] buf = new char[8_192];
        try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
            int n;
            while ((n = r.read(buf)) > 0) {
                sink.accept(new String(buf, 0, n));
            }
        } catch (IOException e) {
            // the process was killed
        }
    }

    /**
     * The program's standard output: its own text, and the tool-call frames it writes ({@code \u001e}, the nonce, a
     * JSON object, a newline), each answered on its standard input with one JSON line of ASCII.
     */
    private static final class Channel {
        private final String nonce;
        private final OutputStream answers;
        private final Optional<ProgramTools> tools;
        private final ToolContext context;
        private final AtomicInteger calls;
        private final String idBase;

        Channel(String nonce, OutputStream answers, Optional<ProgramTools> tools, ToolContext context, AtomicInteger calls) {
            this.nonce = nonce;
            this.answers = answers;
            this.tools = tools;
            this.context = context;
            this.calls = calls;
            String parent = context.callId().filter(id -> id.matches("[A-Za-z0-9_-]+"))
                    .orElse(UUID.randomUUID().toString().replace("-", "").substring(0, 12));
            this.idBase = parent.length() > 30 ? parent.substring(parent.length() - 30) : parent;
        }

        void read(InputStream in, Consumer<String> text) {
            StringBuilder frame = null;
            StringBuilder plain = new StringBuilder();
            char[] buf = new char[8_192];
            try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                int n;
                while ((n = r.read(buf)) > 0) {
                    for (int i = 0; i < n; i++) {
                        char c = buf[i];
                        if (frame != null) {
                            if (c == '\n') {
                                handle(frame.toString(), text);
                                frame = null;
                            } else if (frame.length() < MAX_FRAME) {
                                frame.append(c);
                            }
                        } else if (c == '\u001e') {
                            frame = new StringBuilder();
                        } else {
                            plain.append(c);
                        }
                    }
                    if (!plain.isEmpty()) {
                        text.accept(plain.toString());
                        plain.setLength(0);
                    }
                }
            } catch (IOException e) {
                // the process was killed
            }
        }

        private void handle(String frame, Consumer<String> text) throws IOException {
            if (!frame.startsWith(nonce) || tools.isEmpty()) {
                text.accept(frame + "\n"); // not ours: the program's own text
                return;
            }
            String answer;
            try {
                var node = JSON.readTree(frame.substring(nonce.length()));
                String name = node.path("call").asString("");
                var args = node.path("arguments");
                int n = calls.incrementAndGet();
                ToolCall call = new ToolCall("code" + n + "_" + idBase, name, args.isObject() ? args.toString() : "{}");
                ToolResult result = tools.get().call(call, context);
                answer = result.isError() ? error(result.content()) : ok(result.content());
            } catch (RuntimeException e) {
                answer = error("the call could not be read: " + e.getMessage());
            }
            try {
                answers.write((answer + "\n").getBytes(StandardCharsets.US_ASCII));
                answers.flush();
            } catch (IOException e) {
                // the program is gone; it reads no answer
            }
        }

        private static String ok(String content) {
            Object value;
            try {
                value = JSON.readTree(content);
            } catch (RuntimeException e) {
                value = content;
            }
            return JSON.writeValueAsString(Map.of("result", value));
        }

        private static String error(String message) {
            return JSON.writeValueAsString(Map.of("error", message));
        }

        void close() {
            try {
                answers.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }
}

package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.ToolException;
import dev.engram.framework.Truncation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code shell_exec}: runs a command in the workspace. Without shell syntax enabled the command is
 * split into words (quotes respected) and run directly, with no shell: {@code ;}, {@code &&},
 * {@code |}, redirections, {@code $( )} and backticks are rejected before anything runs, so nothing
 * can be injected. The environment is reduced to an allow-list, and on timeout the whole process
 * tree is killed. Output keeps its end.
 */
final class ShellTool implements AiTool<ShellTool.Input, String> {
    static final String NAME = "shell_exec";

    record Input(@JsonPropertyDescription("The command line, e.g. git status --short.") String command,
            @JsonPropertyDescription("Working directory, relative to the workspace root; default the root.") Optional<String> cwd,
            @JsonPropertyDescription("Seconds to let it run; default 30.") Optional<Integer> timeoutSeconds) {
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ShellTool.class);

    private final Workspace workspace;
    private final ShellOptions options;
    /** The sandbox commands run in; empty when they run on the host. */
    private final Optional<Bubblewrap> sandbox;

    ShellTool(Workspace workspace, ShellOptions options) {
        this.workspace = workspace;
        this.options = options;
        Optional<Bubblewrap> bwrap = switch (options.backend()) {
            case AUTO, SANDBOX -> Bubblewrap.find();
            case HOST, DISABLED -> Optional.empty();
        };
        if (options.backend() == ShellOptions.Backend.SANDBOX && bwrap.isEmpty()) {
            throw new IllegalStateException("shell_exec was asked to run commands in a bubblewrap sandbox, but bwrap is "
                    + "not on the PATH; install it (apt-get install bubblewrap) or choose ShellOptions.host(...)");
        }
        this.sandbox = bwrap;
        if (options.backend() != ShellOptions.Backend.DISABLED) {
            if (sandbox.isPresent()) {
                LOG.info("shell_exec runs commands in a bubblewrap sandbox ({}) over workspace {}",
                        sandbox.get().executable(), workspace.root());
            } else {
                LOG.warn("shell_exec runs commands on the host, with argument checks, over workspace {}; install "
                        + "bubblewrap (apt-get install bubblewrap) to run them in a sandbox", workspace.root());
            }
        }
    }

    /** Whether commands run in the bubblewrap sandbox. */
    boolean sandboxed() {
        return sandbox.isPresent();
    }

    /** An approval for the session covers this command line in this directory, not every command. */
    @Override
    public Optional<String> approvalScope(Input in) {
        return Optional.of(in.command().strip() + "\u0000" + in.cwd().orElse("."));
    }

    @Override
    public ToolInfo info() {
        return new ToolInfo(NAME,
            "Run a command in the workspace and return its exit code and output (the end of it, if long). "
                + (options.anyCommand() ? "" : "Allowed programs: " + (options.allowedCommands().isEmpty() ? "none"
                        : String.join(", ", options.allowedCommands().stream().sorted().toList())) + ". ")
                + (options.shellSyntax() ? "" : "No shell syntax: one program with its arguments, no ;, &&, |, redirections, "
                        + "$( ) or backticks. ")
                + "Use file tools, not cat or sed, to read and edit files.",
            SafetyTier.PRIVILEGED, options.maxTimeout().plusSeconds(10), Truncation.KEEP_TAIL);
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public Optional<String> approvalPreview(Input input, ToolContext context) {
        return Optional.of("$ " + input.command() + input.cwd().map(c -> "   (in " + c + ")").orElse(""));
    }

    @Override
    public String execute(Input in, ToolContext ctx) throws Exception {
        if (options.backend() == ShellOptions.Backend.DISABLED) {
            throw new ToolException("The shell is disabled for this agent; use the file tools instead.");
        }
        List<String> words = words(in.command(), options.shellSyntax());
        if (words.isEmpty()) {
            throw new ToolException("command is empty.");
        }
        String program = Path.of(words.get(0)).getFileName().toString();
        if (!options.anyCommand() && !options.allowedCommands().contains(words.get(0))) {
            throw new ToolException("'" + words.get(0) + "' is not an allowed command. Allowed: "
                    + (options.allowedCommands().isEmpty() ? "none" : String.join(", ", options.allowedCommands().stream().sorted().toList()))
                    + ".");
        }
        Path cwd = workspace.readable(in.cwd().orElse("."));
        if (!Files.isDirectory(cwd)) {
            throw new ToolException("cwd '" + in.cwd().orElse(".") + "' is not a directory.");
        }
        Duration timeout = in.timeoutSeconds().map(s -> {
            if (s < 1) {
                throw new ToolException("timeout_seconds must be at least 1, got " + s + ".");
            }
            return Duration.ofSeconds(s);
        }).orElse(options.defaultTimeout());
        if (timeout.compareTo(options.maxTimeout()) > 0) {
            throw new ToolException("timeout_seconds may be at most " + options.maxTimeout().toSeconds() + ".");
        }
        if (sandbox.isEmpty() && !options.shellSyntax()) {
            HostCommandPolicy.check(words, workspace, cwd);
        }
        List<String> command = options.shellSyntax() ? List.of("/bin/sh", "-c", in.command()) : words;
        Path home = sandbox.isPresent() ? null : Files.createTempDirectory("engram-shell-home-");
        ProcessBuilder pb = new ProcessBuilder(sandbox.map(b -> b.wrap(workspace, cwd, command)).orElse(command));
        pb.directory(cwd.toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> !options.environment().contains(k));
        env.putAll(HostCommandPolicy.GIT_ENVIRONMENT);
        env.put("HOME", home == null ? Bubblewrap.HOME : home.toString());
        try {
            return run(pb, program, timeout);
        } finally {
            if (home != null) {
                deleteTree(home);
            }
        }
    }

    private String run(ProcessBuilder pb, String program, Duration timeout) throws Exception {
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new ToolException("Cannot start '" + program + "': " + e.getMessage());
        }
        process.getOutputStream().close();
        TailBuffer output = new TailBuffer(options.outputBytes());
        Thread reader = Thread.ofVirtual().start(() -> output.drain(process.getInputStream()));
        boolean finished;
        try {
            finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            killTree(process);
            throw e;
        }
        if (!finished) {
            killTree(process);
            reader.join(2_000);
            return "Timed out after " + timeout.toSeconds() + " s; the command and its child processes were killed.\n"
                    + output.text();
        }
        reader.join(5_000);
        return "exit code " + process.exitValue() + "\n" + output.text();
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debug("Cannot delete {}", dir, e);
        }
    }

    private static void killTree(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /**
     * Splits a command line into words: whitespace separates, single quotes keep everything, double
     * quotes keep everything but backslash escapes, a backslash escapes the next character. Without
     * shell syntax, unquoted shell operators are rejected.
     */
    static List<String> words(String command, boolean shellSyntax) {
        if (command.indexOf('\n') >= 0 || command.indexOf('\r') >= 0 || command.indexOf('\0') >= 0) {
            throw new ToolException("command must be a single line.");
        }
        List<String> out = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (quote == '\'') {
                if (c == '\'') {
                    quote = 0;
                } else {
                    word.append(c);
                }
                continue;
            }
            if (c == '`' || (c == '$' && i + 1 < command.length() && (command.charAt(i + 1) == '(' || command.charAt(i + 1) == '{'))) {
                if (!shellSyntax) {
                    throw new ToolException("command uses shell substitution (" + (c == '`' ? "`" : "$" + command.charAt(i + 1))
                            + "), which is not allowed; run one program with plain arguments.");
                }
            }
            if (quote == '"') {
                if (c == '"') {
                    quote = 0;
                } else if (c == '\\' && i + 1 < command.length()) {
                    word.append(command.charAt(++i));
                } else {
                    word.append(c);
                }
                continue;
            }
            if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (c == '\\' && i + 1 < command.length()) {
                word.append(command.charAt(++i));
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    out.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else if (";&|<>()".indexOf(c) >= 0 && !shellSyntax) {
                throw new ToolException("command uses the shell operator '" + c + "', which is not allowed; run one program "
                        + "with plain arguments (no ;, &&, ||, |, <, >, parentheses).");
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (quote != 0) {
            throw new ToolException("command has an unclosed " + (quote == '"' ? "double" : "single") + " quote.");
        }
        if (inWord) {
            out.add(word.toString());
        }
        return out;
    }

    /** Keeps the last {@code capacity} bytes of a stream, and how many were dropped. */
    static final class TailBuffer {
        private final byte[] ring;
        private long total;

        TailBuffer(int capacity) {
            this.ring = new byte[capacity];
        }

        void drain(InputStream in) {
            byte[] buf = new byte[8_192];
            try (in) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    synchronized (this) {
                        for (int i = 0; i < n; i++) {
                            ring[(int) (total++ % ring.length)] = buf[i];
                        }
                    }
                }
            } catch (IOException ignored) {
                // the process was killed
            }
        }

        synchronized String text() {
            int size = (int) Math.min(total, ring.length);
            byte[] out = new byte[size];
            int start = (int) (total % ring.length);
            for (int i = 0; i < size; i++) {
                out[i] = ring[total > ring.length ? (start + i) % ring.length : i];
            }
            int skip = 0;
            while (skip < out.length && (out[skip] & 0xC0) == 0x80) {
                skip++;
            }
            String text = new String(out, skip, out.length - skip, StandardCharsets.UTF_8);
            return total > ring.length ? "[... " + (total - ring.length + skip) + " earlier bytes dropped]\n" + text : text;
        }
    }
}

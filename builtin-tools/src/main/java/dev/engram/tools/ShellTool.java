package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.ToolProgress;
import dev.engram.framework.ToolException;
import dev.engram.framework.Truncation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
    /** The sandbox commands run in; empty when they run on the host or not at all. */
    private final Optional<Bubblewrap> sandbox;
    /** Why every call is refused, when there is no sandbox and the host was not chosen. */
    private final Optional<String> refusal;
    /** The persistent shells, with {@link ShellOptions.Backend#SESSION}. */
    private final Optional<ShellSessions> sessions;
    /** Builtins a session line may start with whatever the allow-list: they change only the session. */
    private static final java.util.Set<String> SESSION_BUILTINS = java.util.Set.of("cd", "pwd", "export", "unset");

    static final String NO_SANDBOX = "shell_exec cannot run commands here: bubblewrap, the sandbox commands run in, is "
            + "not installed, and running them unsandboxed on the host was not chosen. The operator can install it ("
            + Bubblewrap.INSTALL + "), or accept unsandboxed commands with engram --unsafe-host-shell "
            + "(ShellOptions.withUnsandboxedHostFallback()). Nothing was run.";

    ShellTool(Workspace workspace, ShellOptions options) {
        this(workspace, options, findSandbox(options), Optional.empty());
    }

    /** With {@code sessions} owning the shells of {@link ShellOptions.Backend#SESSION}. */
    ShellTool(Workspace workspace, ShellOptions options, ShellSessions sessions) {
        this(workspace, options, findSandbox(options), Optional.of(sessions));
    }

    private static Optional<Bubblewrap> findSandbox(ShellOptions options) {
        return switch (options.backend()) {
            case AUTO, SANDBOX, SESSION -> Bubblewrap.find();
            case UNSANDBOXED_HOST, DISABLED -> Optional.empty();
        };
    }

    /** With the sandbox found on this machine, if any (tests pass none to see the tool without bubblewrap). */
    ShellTool(Workspace workspace, ShellOptions options, Optional<Bubblewrap> bwrap) {
        this(workspace, options, bwrap, Optional.empty());
    }

    private ShellTool(Workspace workspace, ShellOptions options, Optional<Bubblewrap> bwrap, Optional<ShellSessions> sessions) {
        this.workspace = workspace;
        this.options = options;
        this.sessions = sessions;
        boolean session = options.backend() == ShellOptions.Backend.SESSION;
        if (session && sessions.isEmpty()) {
            throw new IllegalArgumentException("a shell session backend needs the ShellSessions that own its shells: "
                    + "BuiltinTools.shell(workspace, options, sessions)");
        }
        if ((session || options.backend() == ShellOptions.Backend.SANDBOX) && bwrap.isEmpty()) {
            throw new IllegalStateException("shell_exec was asked to run commands in a bubblewrap sandbox, but bwrap is "
                    + "not on the PATH; install it (" + Bubblewrap.INSTALL + ") or choose ShellOptions.unsandboxedHost(...)");
        }
        this.sandbox = options.backend() == ShellOptions.Backend.UNSANDBOXED_HOST ? Optional.empty() : bwrap;
        // A root JVM without setpriv has no sandbox, and no weaker one either: never the host, whatever the fallback.
        Optional<String> unusable = sandbox.flatMap(b -> b.user().refusal());
        if ((session || options.backend() == ShellOptions.Backend.SANDBOX) && unusable.isPresent()) {
            throw new IllegalStateException("shell_exec was asked to run commands in a bubblewrap sandbox: " + unusable.get());
        }
        this.refusal = unusable.map(why -> "shell_exec cannot run commands here. " + why + " Nothing was run.")
                .or(() -> options.backend() == ShellOptions.Backend.AUTO && sandbox.isEmpty() && !options.unsandboxedHostFallback()
                        ? Optional.of(NO_SANDBOX) : Optional.empty());
        if (options.backend() != ShellOptions.Backend.DISABLED) {
            if (unusable.isPresent()) {
                LOG.warn("shell_exec refuses every command over workspace {}: {}", workspace.root(), unusable.get());
            } else if (sandbox.isPresent()) {
                LOG.info("shell_exec runs commands in {} bubblewrap sandbox ({}, uid {} on the host) over workspace {}",
                        session ? "a persistent shell per session, in a" : "a", sandbox.get().executable(), sandbox.get().user().uid(), workspace.root());
                try {
                    sandbox.get().user().checkAccess(workspace, workspace.root());
                } catch (ToolException e) {
                    LOG.warn("shell_exec will refuse every command over workspace {} until this is fixed: {}", workspace.root(),
                            e.getMessage());
                }
            } else if (refusal.isPresent()) {
                LOG.warn("shell_exec refuses every command over workspace {}: bubblewrap is not installed ({}), and the "
                        + "unsandboxed host was not chosen (--unsafe-host-shell)", workspace.root(), Bubblewrap.INSTALL);
            } else {
                LOG.warn("shell_exec runs commands UNSANDBOXED on the host, with argument checks only, over workspace {}; "
                        + "install bubblewrap ({}) to run them in a sandbox", workspace.root(), Bubblewrap.INSTALL);
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
            (sessions.isPresent() ? "Run a command line in this conversation's persistent shell, in the workspace, and return "
                    + "its exit code and output (the end of it, if long). "
                    : "Run a command in the workspace and return its exit code and output (the end of it, if long). ")
                + (options.anyCommand() ? "" : "Allowed programs: " + (options.allowedCommands().isEmpty() ? "none"
                        : String.join(", ", options.allowedCommands().stream().sorted().toList())) + ". ")
                + (options.shellSyntax() ? "" : "No shell syntax: one program with its arguments, no ;, &&, |, redirections, "
                        + "$( ) or backticks. ")
                + (sessions.isPresent() ? "The working directory and exported variables carry over to the next call (cd, pwd, "
                        + "export and unset are always allowed); a command past its timeout restarts the session. " : "")
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
        if (refusal.isPresent()) {
            throw new ToolException(refusal.get());
        }
        List<String> words = words(in.command(), options.shellSyntax());
        if (words.isEmpty()) {
            throw new ToolException("command is empty.");
        }
        String program = Path.of(words.get(0)).getFileName().toString();
        if (!options.anyCommand() && !options.allowedCommands().contains(words.get(0))
                && !(sessions.isPresent() && SESSION_BUILTINS.contains(words.get(0)))) {
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
        if (sessions.isPresent()) {
            return sessions.get().run(ShellSessions.Key.of(ctx, workspace), sandbox.orElseThrow(), workspace, options,
                    in.command(), in.cwd().map(c -> cwd), timeout, ctx);
        }
        if (sandbox.isEmpty() && !options.shellSyntax()) {
            HostCommandPolicy.check(words, workspace, cwd);
        }
        List<String> command = options.shellSyntax() ? List.of("/bin/sh", "-c", in.command()) : words;
        Path home = sandbox.isPresent() ? null : Files.createTempDirectory("engram-shell-home-");
        ProcessBuilder pb = new ProcessBuilder(sandbox.map(b -> b.wrap(workspace, cwd, command, options.limits())).orElse(command));
        pb.directory(cwd.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> !options.environment().contains(k));
        env.putAll(HostCommandPolicy.GIT_ENVIRONMENT);
        env.put("HOME", home == null ? Bubblewrap.HOME : home.toString());
        try {
            return run(pb, program, timeout, ctx.progress());
        } finally {
            if (home != null) {
                deleteTree(home);
            }
        }
    }

    /** Runs the command; what it prints is reported to {@code progress} as it runs (the result keeps its end). */
    private String run(ProcessBuilder pb, String program, Duration timeout, ToolProgress progress) throws Exception {
        BoundedProcess.Outcome outcome;
        try {
            outcome = BoundedProcess.run(pb, new byte[0], timeout, options.outputBytes(), true, progress);
        } catch (IOException e) {
            throw new ToolException("Cannot start '" + program + "': " + e.getMessage());
        }
        String output = outcome.output().text();
        return switch (outcome.stop()) {
            case EXITED -> "exit code " + outcome.exitCode().orElseThrow() + "\n" + output;
            case TIMED_OUT -> "Timed out after " + timeout.toSeconds() + " s; the command and its child processes were "
                    + "killed.\n" + output;
        };
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debug("Cannot delete {}", dir, e);
        }
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
}

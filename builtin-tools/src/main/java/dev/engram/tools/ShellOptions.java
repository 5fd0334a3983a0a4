package dev.engram.tools;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How {@code shell_exec} runs commands.
 *
 * @param backend          where commands run: {@link Backend#AUTO} (the default: a bubblewrap sandbox when
 *                         {@code bwrap} is on the PATH, else every call is refused unless
 *                         {@code unsandboxedHostFallback}), {@link Backend#SANDBOX}, {@link Backend#UNSANDBOXED_HOST}
 *                         or {@link Backend#DISABLED}
 * @param allowedCommands  program names a command may start with; empty with {@code anyCommand} false allows none
 * @param anyCommand       allow every program (use with approval)
 * @param shellSyntax      allow {@code ; && || | > < $( ) `} by running through {@code /bin/sh -c}; then only the
 *                         first program of the line is checked against the allow-list, so pair it with approval
 * @param environment      names of environment variables passed on; all others are removed
 * @param defaultTimeout   when the call gives none
 * @param maxTimeout       the most a call may ask for
 * @param outputBytes      output kept per call, from the end
 * @param unsandboxedHostFallback with {@link Backend#AUTO}: run commands on the host, with argument checks only,
 *                         when {@code bwrap} is missing, instead of refusing them
 * @param limits           the resource limits of each command in the sandbox
 */
public record ShellOptions(Backend backend, Set<String> allowedCommands, boolean anyCommand, boolean shellSyntax,
        Set<String> environment, Duration defaultTimeout, Duration maxTimeout, int outputBytes,
        boolean unsandboxedHostFallback, SandboxLimits limits) {
    /** Output kept by default: with its header it stays under the pipeline's 16 KiB budget. */
    public static final int DEFAULT_OUTPUT_BYTES = 12_288;

    /** Where commands run. */
    public enum Backend {
        /**
         * A bubblewrap sandbox when {@code bwrap} is on the PATH; without it every call is refused, saying how to
         * install it, unless the host fallback was chosen ({@link ShellOptions#withUnsandboxedHostFallback()}).
         */
        AUTO,
        /** A bubblewrap sandbox; the tool cannot be created without {@code bwrap} (apt-get install bubblewrap). */
        SANDBOX,
        /**
         * This machine, unsandboxed: per-program argument checks, a private HOME and git's config switched off,
         * but nothing that contains what an allowed program does. Only for a trusted agent on a trusted machine.
         */
        UNSANDBOXED_HOST,
        /**
         * A persistent shell per agent and conversation session, in a bubblewrap sandbox with the same limits: the
         * working directory and variables carry over between calls. The tool cannot be created without {@code bwrap},
         * nor without the {@link ShellSessions} that own the shells ({@link BuiltinTools#shell(Workspace, ShellOptions,
         * ShellSessions)}). Lines run in the shell, so it needs {@link ShellOptions#withShellSyntax()}
         * ({@link ShellOptions#session(String...)} sets it).
         */
        SESSION,
        /** Every call is refused. */
        DISABLED
    }

    /**
     * Validates the options.
     *
     * @throws IllegalArgumentException when the timeouts are not {@code 0 < default <= max}, fewer than 1024
     *                                  output bytes are kept, or a {@link Backend#SESSION} lacks shell syntax
     */
    public ShellOptions {
        Objects.requireNonNull(backend, "backend");
        allowedCommands = Set.copyOf(allowedCommands);
        environment = Set.copyOf(environment);
        Objects.requireNonNull(defaultTimeout, "defaultTimeout");
        Objects.requireNonNull(maxTimeout, "maxTimeout");
        Objects.requireNonNull(limits, "limits");
        if (defaultTimeout.isNegative() || defaultTimeout.isZero() || maxTimeout.compareTo(defaultTimeout) < 0) {
            throw new IllegalArgumentException("timeouts must satisfy 0 < default <= max");
        }
        if (outputBytes < 1_024) {
            throw new IllegalArgumentException("output bytes must be at least 1024, got " + outputBytes);
        }
        if (backend == Backend.SESSION && !shellSyntax) {
            throw new IllegalArgumentException("a shell session runs each line in a shell: add withShellSyntax() (or use "
                    + "ShellOptions.session(...))");
        }
    }

    /** The shell is off: every call returns an error saying so. */
    public static ShellOptions disabled() {
        return of().withBackend(Backend.DISABLED);
    }

    /**
     * Only the given programs, no shell syntax, a minimal environment, the default {@link SandboxLimits}; in a
     * bubblewrap sandbox when {@code bwrap} is on the PATH, else every call is refused (saying to install
     * bubblewrap) unless {@link #withUnsandboxedHostFallback()} is added.
     */
    public static ShellOptions of(String... allowedCommands) {
        return new ShellOptions(Backend.AUTO, new LinkedHashSet<>(List.of(allowedCommands)), false, false,
                Set.of("PATH", "LANG", "LC_ALL", "TERM", "TZ"), Duration.ofSeconds(30), Duration.ofMinutes(5),
                DEFAULT_OUTPUT_BYTES, false, SandboxLimits.defaults());
    }

    /** As {@link #of}, always in a bubblewrap sandbox. */
    public static ShellOptions sandboxed(String... allowedCommands) {
        return of(allowedCommands).withBackend(Backend.SANDBOX);
    }

    /**
     * As {@link #of}, in a persistent sandboxed shell per agent and session ({@link Backend#SESSION}), with shell syntax:
     * the first word of a line must be an allowed program or one of the builtins that only change the session
     * ({@code cd}, {@code pwd}, {@code export}, {@code unset}); the rest of the line is the shell's, so pair it with
     * approval, as the tool's tier does.
     */
    public static ShellOptions session(String... allowedCommands) {
        return of(allowedCommands).withShellSyntax().withBackend(Backend.SESSION);
    }

    /**
     * As {@link #of}, always on the host, unsandboxed: argument checks, a private HOME and git's config switched
     * off, but no sandbox, no resource limits, and every file the JVM's user can reach is one argument-check
     * mistake away. Only for a trusted agent on a trusted machine.
     */
    public static ShellOptions unsandboxedHost(String... allowedCommands) {
        return of(allowedCommands).withBackend(Backend.UNSANDBOXED_HOST);
    }

    public ShellOptions withBackend(Backend newBackend) {
        return new ShellOptions(newBackend, allowedCommands, anyCommand, shellSyntax, environment, defaultTimeout, maxTimeout,
                outputBytes, unsandboxedHostFallback, limits);
    }

    public ShellOptions withAnyCommand() {
        return new ShellOptions(backend, allowedCommands, true, shellSyntax, environment, defaultTimeout, maxTimeout,
                outputBytes, unsandboxedHostFallback, limits);
    }

    public ShellOptions withShellSyntax() {
        return new ShellOptions(backend, allowedCommands, anyCommand, true, environment, defaultTimeout, maxTimeout,
                outputBytes, unsandboxedHostFallback, limits);
    }

    public ShellOptions withTimeouts(Duration defaultTimeout, Duration maxTimeout) {
        return new ShellOptions(backend, allowedCommands, anyCommand, shellSyntax, environment, defaultTimeout, maxTimeout,
                outputBytes, unsandboxedHostFallback, limits);
    }

    /** The resource limits of each command in the sandbox; {@link SandboxLimits#defaults()} unless set. */
    public ShellOptions withLimits(SandboxLimits newLimits) {
        return new ShellOptions(backend, allowedCommands, anyCommand, shellSyntax, environment, defaultTimeout, maxTimeout,
                outputBytes, unsandboxedHostFallback, newLimits);
    }

    /**
     * With {@link Backend#AUTO}, run commands unsandboxed on the host (argument checks only) when {@code bwrap} is
     * missing, instead of refusing them ({@code engram --unsafe-host-shell}). Where bubblewrap is installed the
     * sandbox is still used.
     */
    public ShellOptions withUnsandboxedHostFallback() {
        return new ShellOptions(backend, allowedCommands, anyCommand, shellSyntax, environment, defaultTimeout, maxTimeout,
                outputBytes, true, limits);
    }

    /**
     * Where shell commands and Python tools run on this machine, in words for a log line: the bubblewrap sandbox
     * at its path, or none, and then what the shell does ({@code unsandboxedHostFallback}: whether the operator
     * chose the unsandboxed host where bubblewrap is missing).
     */
    public static String sandboxDescription(boolean unsandboxedHostFallback) {
        return Bubblewrap.find().map(b -> b.user().refusal().map(why -> "none: " + why + " So shell_exec refuses every "
                        + "command and Python tools cannot be enabled")
                .orElseGet(() -> "bubblewrap (" + b.executable() + "; capabilities dropped"
                        + (b.user().dropsRoot() ? ", run as uid " + b.user().uid() + " on the host through setpriv" : "")
                        + ", resource limits set)"))
                .orElse("none: bwrap is not on the PATH (or /usr/bin/prlimit is missing), so "
                        + (unsandboxedHostFallback ? "shell_exec runs commands UNSANDBOXED on the host (--unsafe-host-shell)"
                                : "shell_exec refuses every command (unless --unsafe-host-shell is given)")
                        + " and Python tools cannot be enabled (" + Bubblewrap.INSTALL + ")");
    }
}

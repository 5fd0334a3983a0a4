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
 *                         {@code bwrap} is on the PATH, else the host with argument checks),
 *                         {@link Backend#SANDBOX}, {@link Backend#HOST} or {@link Backend#DISABLED}
 * @param allowedCommands  program names a command may start with; empty with {@code anyCommand} false allows none
 * @param anyCommand       allow every program (use with approval)
 * @param shellSyntax      allow {@code ; && || | > < $( ) `} by running through {@code /bin/sh -c}; then only the
 *                         first program of the line is checked against the allow-list, so pair it with approval
 * @param environment      names of environment variables passed on; all others are removed
 * @param defaultTimeout   when the call gives none
 * @param maxTimeout       the most a call may ask for
 * @param outputBytes      output kept per call, from the end
 */
public record ShellOptions(Backend backend, Set<String> allowedCommands, boolean anyCommand, boolean shellSyntax,
        Set<String> environment, Duration defaultTimeout, Duration maxTimeout, int outputBytes) {
    /** Output kept by default: with its header it stays under the pipeline's 16 KiB budget. */
    public static final int DEFAULT_OUTPUT_BYTES = 12_288;

    /** Where commands run. */
    public enum Backend {
        /** A bubblewrap sandbox when {@code bwrap} is on the PATH, else the host. */
        AUTO,
        /** A bubblewrap sandbox; the tool cannot be created without {@code bwrap} (apt-get install bubblewrap). */
        SANDBOX,
        /** This machine, with per-program argument checks, a private HOME and git's config switched off. */
        HOST,
        /** Every call is refused. */
        DISABLED
    }

    public ShellOptions {
        Objects.requireNonNull(backend, "backend");
        allowedCommands = Set.copyOf(allowedCommands);
        environment = Set.copyOf(environment);
        Objects.requireNonNull(defaultTimeout, "defaultTimeout");
        Objects.requireNonNull(maxTimeout, "maxTimeout");
        if (defaultTimeout.isNegative() || defaultTimeout.isZero() || maxTimeout.compareTo(defaultTimeout) < 0) {
            throw new IllegalArgumentException("timeouts must satisfy 0 < default <= max");
        }
        if (outputBytes < 1_024) {
            throw new IllegalArgumentException("output bytes must be at least 1024, got " + outputBytes);
        }
    }

    /** The shell is off: every call returns an error saying so. */
    public static ShellOptions disabled() {
        return new ShellOptions(Backend.DISABLED, Set.of(), false, false, Set.of(), Duration.ofSeconds(30),
                Duration.ofMinutes(5), DEFAULT_OUTPUT_BYTES);
    }

    /**
     * Only the given programs, no shell syntax, a minimal environment; in a bubblewrap sandbox when
     * {@code bwrap} is on the PATH, else on the host with argument checks (the tool logs which).
     */
    public static ShellOptions of(String... allowedCommands) {
        return host(allowedCommands).withBackend(Backend.AUTO);
    }

    /** As {@link #of}, always in a bubblewrap sandbox. */
    public static ShellOptions sandboxed(String... allowedCommands) {
        return host(allowedCommands).withBackend(Backend.SANDBOX);
    }

    /** As {@link #of}, always on the host (argument checks, a private HOME, git's config switched off). */
    public static ShellOptions host(String... allowedCommands) {
        return new ShellOptions(Backend.HOST, new LinkedHashSet<>(List.of(allowedCommands)), false, false,
                Set.of("PATH", "LANG", "LC_ALL", "TERM", "TZ"), Duration.ofSeconds(30), Duration.ofMinutes(5), DEFAULT_OUTPUT_BYTES);
    }

    public ShellOptions withBackend(Backend newBackend) {
        return new ShellOptions(newBackend, allowedCommands, anyCommand, shellSyntax, environment, defaultTimeout, maxTimeout, outputBytes);
    }

    public ShellOptions withAnyCommand() {
        return new ShellOptions(backend, allowedCommands, true, shellSyntax, environment, defaultTimeout, maxTimeout, outputBytes);
    }

    public ShellOptions withShellSyntax() {
        return new ShellOptions(backend, allowedCommands, anyCommand, true, environment, defaultTimeout, maxTimeout, outputBytes);
    }

    public ShellOptions withTimeouts(Duration defaultTimeout, Duration maxTimeout) {
        return new ShellOptions(backend, allowedCommands, anyCommand, shellSyntax, environment, defaultTimeout, maxTimeout, outputBytes);
    }

    /**
     * Where shell commands and Python tools run on this machine, in words for a log line: the bubblewrap sandbox
     * at its path, or the host when {@code bwrap} is not on the PATH.
     */
    public static String sandboxDescription() {
        return Bubblewrap.find().map(b -> "bubblewrap (" + b.executable() + ")")
                .orElse("none: bwrap is not on the PATH, so shell and Python tools run on the host (apt-get install bubblewrap)");
    }
}

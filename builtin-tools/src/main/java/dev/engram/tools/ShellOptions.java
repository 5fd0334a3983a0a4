package dev.engram.tools;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How {@code shell_exec} runs commands.
 *
 * @param backend          {@link Backend#HOST} runs processes on this machine; {@link Backend#DISABLED} refuses every call
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
        HOST, DISABLED
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

    /** Runs on the host, only the given programs, no shell syntax, a minimal environment. */
    public static ShellOptions host(String... allowedCommands) {
        return new ShellOptions(Backend.HOST, new LinkedHashSet<>(List.of(allowedCommands)), false, false,
                Set.of("PATH", "LANG", "LC_ALL", "TERM", "TZ"), Duration.ofSeconds(30), Duration.ofMinutes(5), DEFAULT_OUTPUT_BYTES);
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
}

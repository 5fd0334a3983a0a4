package dev.engram.tools;

import java.time.Duration;
import java.util.OptionalInt;

/**
 * How one program of the {@link CodeRunner} ended.
 *
 * @param stop       why it ended
 * @param exitCode   its exit code when it exited on its own
 * @param stdout     the end of its standard output (the runner keeps {@link CodeRunner#KEPT_BYTES}), preceded by a
 *                   line saying how much was dropped when some was
 * @param stderr     the end of its standard error, likewise
 * @param toolCalls  how many calls the program made to the agent's tools (code mode; 0 for {@code run_code})
 * @param duration   its wall-clock time, tool calls included
 */
public record CodeRun(Stop stop, OptionalInt exitCode, String stdout, String stderr, int toolCalls, Duration duration) {
    /** Why a program ended. */
    public enum Stop {
        /** It exited on its own (its exit code says how), or was killed from inside (its CPU time limit). */
        EXITED,
        /** It ran past its wall-clock timeout and was killed with every process it started. */
        TIMED_OUT,
        /** It printed more than the output limit and was killed with every process it started. */
        OUTPUT_LIMIT
    }

    /** Whether it exited on its own with exit code 0. */
    public boolean succeeded() {
        return stop == Stop.EXITED && exitCode.orElse(-1) == 0;
    }
}

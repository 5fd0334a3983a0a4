package dev.engram.memory;

import java.util.Optional;

/**
 * What part of a unit of work that could be undone alone did ({@link MemoryStore#attempt}).
 *
 * @param result  what the work returned
 * @param kept    whether its writes stay, to commit with the unit; {@code false} when they were undone
 * @param failure the store call inside it that failed, if one did (its writes were then undone)
 * @param <R>     the work's result
 */
public record Attempt<R>(R result, boolean kept, Optional<RuntimeException> failure) {
}

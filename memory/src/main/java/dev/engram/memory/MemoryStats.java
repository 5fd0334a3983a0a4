package dev.engram.memory;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Counts for one scope, as the prompt's memory statistics show them.
 *
 * @param blocks            blocks the agent sees (own and shared)
 * @param archivalEntries   archival entries of the scope
 * @param notes             notes of the user
 * @param messages          messages of the scope (recall memory)
 * @param messagesInContext of those, still in the context window
 * @param lastMessageAt     when the newest message was appended
 * @param firstInContextId  the id of the oldest message still in the context window, read with the counts where the
 *                          backend does so (SQLite); empty when there is none or the backend does not read it
 */
public record MemoryStats(long blocks, long archivalEntries, long notes, long messages, long messagesInContext,
        Optional<Instant> lastMessageAt, OptionalLong firstInContextId) {
    /** Checks the optional parts. */
    public MemoryStats {
        Objects.requireNonNull(lastMessageAt, "lastMessageAt must not be null");
        Objects.requireNonNull(firstInContextId, "firstInContextId must not be null");
    }

    /** Counts without the oldest in-context message's id. */
    public MemoryStats(long blocks, long archivalEntries, long notes, long messages, long messagesInContext,
            Optional<Instant> lastMessageAt) {
        this(blocks, archivalEntries, notes, messages, messagesInContext, lastMessageAt, OptionalLong.empty());
    }
}

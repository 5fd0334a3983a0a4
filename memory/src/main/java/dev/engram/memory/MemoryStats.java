package dev.engram.memory;

import java.time.Instant;
import java.util.Optional;

/**
 * Counts for one scope, as the prompt's memory statistics show them.
 *
 * @param blocks            blocks the agent sees (own and shared)
 * @param archivalEntries   archival entries of the scope
 * @param notes             notes of the user
 * @param messages          messages of the scope (recall memory)
 * @param messagesInContext of those, still in the context window
 * @param lastMessageAt     when the newest message was appended
 */
public record MemoryStats(long blocks, long archivalEntries, long notes, long messages, long messagesInContext,
        Optional<Instant> lastMessageAt) {
}

package dev.engram.agents;

/**
 * What {@link Agent#compact(String)} did: the summary it stored, and how many messages the session's context window
 * held before and after (summaries of earlier evictions count as messages; they are folded into the new one).
 *
 * @param summary        the summary of the evicted messages, as stored (without the runtime's prefix)
 * @param messagesBefore in-context messages of the session before
 * @param messagesAfter  in-context messages of the session after, the new summary included
 */
public record Compaction(String summary, int messagesBefore, int messagesAfter) {
}

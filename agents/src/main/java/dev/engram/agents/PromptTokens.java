package dev.engram.agents;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageToolCall;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An agent's token counts of what goes into its prompts, cached where the text repeats: stored
 * messages by id, kept while the message says the same (a corrected message, {@code MessageStore.edit}, is
 * counted again), and the texts that repeat from step to step (instructions, rendered blocks) by text.
 * Thread-safe.
 */
final class PromptTokens {
    private static final int MAX_CACHED_TEXTS = 64;

    private final TokenCounter counter;
    private final Map<Long, Counted> messages = new ConcurrentHashMap<>();
    private final Map<String, Integer> texts = new ConcurrentHashMap<>();

    PromptTokens(TokenCounter counter) {
        this.counter = counter;
    }

    int count(String text) {
        return counter.count(text);
    }

    /** What a message's count was taken of: its text and tool calls (the same objects while it is not re-read). */
    private record Counted(String content, List<MessageToolCall> toolCalls, int tokens) {
        boolean of(ConversationMessage m) {
            return content.equals(m.content()) && toolCalls.equals(m.toolCalls());
        }
    }

    /** The tokens of one stored message, with its tool calls. */
    int count(ConversationMessage m) {
        Counted known = messages.get(m.id());
        if (known != null && known.of(m)) {
            return known.tokens();
        }
        int n = counter.count(m.content()) + 4;
        for (MessageToolCall c : m.toolCalls()) {
            n += counter.count(c.name()) + counter.count(c.arguments()) + 4;
        }
        messages.put(m.id(), new Counted(m.content(), m.toolCalls(), n));
        return n;
    }

    /** The tokens of a text that repeats from step to step. */
    int cached(String text) {
        Integer n = texts.get(text);
        if (n == null) {
            n = counter.count(text);
            if (texts.size() > MAX_CACHED_TEXTS) {
                texts.clear();
            }
            texts.put(text, n);
        }
        return n;
    }

    /** Forgets the counts of messages that left the context. */
    void forget(List<Long> ids) {
        ids.forEach(messages::remove);
    }
}

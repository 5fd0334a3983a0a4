package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.memory.Conversation;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.Scope;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code read_reasoning}: the agent reads its own earlier reasoning, also what has left its context window. Reasoning is
 * two things, kept apart in the answer: the model's own thinking, stored with each assistant message where the provider
 * showed it (Anthropic's thinking, Gemini's thought summaries, {@code reasoning_content}; Letta's {@code reasoning_message}
 * from a {@code reasoner_model}), and the text the agent wrote beside its tool calls (a heartbeat agent's inner
 * monologue; Letta's {@code non_reasoner_model} reasoning). Reasoning a provider gave only encrypted cannot be read: an
 * entry says it was there.
 */
final class ReasoningTool implements AiTool<ReasoningTool.Input, String> {
    static final String NAME = "read_reasoning";
    /** The most entries one call returns. */
    static final int MAX_LIMIT = 50;
    /** The newest messages looked through. */
    static final int SCANNED = 2_000;
    private static final ToolInfo INFO = ToolInfo.of(NAME, "Read your own earlier reasoning, newest first, also what has left "
            + "your context: your thinking before each answer (where your model showed it) and what you wrote beside your "
            + "tool calls, in this session or all, optionally only entries containing some words. Use it to recall why you "
            + "did something.", SafetyTier.READ_ONLY);
    /** What the answer calls the model's own reasoning, and the text beside tool calls. */
    static final String THINKING = "thinking: ";
    static final String WROTE = "wrote beside the calls: ";

    record Input(@JsonPropertyDescription("Only entries containing this text (any case); default all.") Optional<String> query,
            @JsonPropertyDescription("this (default): the session you are in; all: every session.") Optional<String> sessions,
            @JsonPropertyDescription("How many entries, 1 to 50; default 10.") Optional<Integer> limit) {
    }

    private final MemoryStore store;

    ReasoningTool(MemoryStore store) {
        this.store = store;
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public String execute(Input in, ToolContext ctx) {
        Scope scope = ToolScopes.of(ctx);
        int limit = in.limit().orElse(10);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new ToolException("limit must be between 1 and " + MAX_LIMIT + ", got " + limit + ".");
        }
        String which = in.sessions().map(s -> s.strip().toLowerCase(Locale.ROOT)).orElse("this");
        if (!which.equals("this") && !which.equals("all")) {
            throw new ToolException("sessions is 'this' or 'all', got '" + in.sessions().get() + "'.");
        }
        String current = ctx.sessionId().orElse("default");
        MessageQuery query = MessageQuery.all().newest(SCANNED);
        if (which.equals("this") && Conversation.isConversationSession(current)) {
            query = query.withSession(current);
        }
        String needle = in.query().map(q -> q.strip().toLowerCase(Locale.ROOT)).orElse("");
        List<ConversationMessage> messages = store.messages().list(scope, query);
        List<String> found = new ArrayList<>();
        for (int i = messages.size() - 1; i >= 0 && found.size() < limit; i--) {
            ConversationMessage m = messages.get(i);
            boolean inThis = which.equals("all") || Conversation.isConversationSession(current)
                    || !Conversation.isConversationSession(m.sessionId());
            if (m.role() != MessageRole.ASSISTANT || !inThis) {
                continue;
            }
            String thinking = m.reasoning().text().strip();
            String wrote = m.toolCalls().isEmpty() ? "" : m.content().strip();
            boolean hidden = !m.reasoning().redacted().isEmpty();
            if (thinking.isEmpty() && wrote.isEmpty() && !hidden) {
                continue;
            }
            if (!needle.isEmpty() && !thinking.toLowerCase(Locale.ROOT).contains(needle)
                    && !wrote.toLowerCase(Locale.ROOT).contains(needle)) {
                continue;
            }
            StringBuilder entry = new StringBuilder("- ").append(m.createdAt().truncatedTo(ChronoUnit.SECONDS))
                    .append(which.equals("all") ? " [" + m.sessionId() + "]" : "")
                    .append(m.inContext() ? "" : " (no longer in context)")
                    .append(m.toolCalls().isEmpty() ? ", then answered" : ", then called "
                            + m.toolCalls().stream().map(MessageToolCall::name).collect(Collectors.joining(", ")));
            if (!thinking.isEmpty()) {
                entry.append("\n  ").append(THINKING).append(thinking);
            }
            if (hidden) {
                entry.append(thinking.isEmpty() ? "\n  (your thinking was there, but your model's provider keeps it encrypted)"
                        : "\n  (more of your thinking was there, which your model's provider keeps encrypted)");
            }
            if (!wrote.isEmpty()) {
                entry.append("\n  ").append(WROTE).append(wrote);
            }
            found.add(entry.toString());
        }
        if (found.isEmpty()) {
            return "No earlier reasoning found" + (needle.isEmpty() ? "" : " containing '" + in.query().get().strip() + "'") + ".";
        }
        return "Your reasoning, newest first (" + found.size() + "; '" + THINKING.strip() + "' is your own thinking before you "
                + "answered, '" + WROTE.strip() + "' what you wrote beside your tool calls):\n" + String.join("\n", found);
    }
}

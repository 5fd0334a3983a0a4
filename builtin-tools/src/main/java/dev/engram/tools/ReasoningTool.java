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
 * what recall memory already keeps in the message rows, as Letta shows it ({@code reasoning_message}): the text of an
 * assistant message beside its tool calls (a heartbeat agent's inner monologue, a model's words before it acts). A
 * provider's hidden thinking, streamed as {@code AgentStreamEvent.Reasoning}, is not stored and so not read here.
 */
final class ReasoningTool implements AiTool<ReasoningTool.Input, String> {
    static final String NAME = "read_reasoning";
    /** The most entries one call returns. */
    static final int MAX_LIMIT = 50;
    /** The newest messages looked through. */
    static final int SCANNED = 2_000;
    private static final ToolInfo INFO = ToolInfo.of(NAME, "Read your own earlier reasoning (what you wrote beside your tool "
            + "calls), newest first, also what has left your context: in this session or all, optionally only entries "
            + "containing some words. Use it to recall why you did something.", SafetyTier.READ_ONLY);

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
            if (m.role() != MessageRole.ASSISTANT || m.toolCalls().isEmpty() || m.content().isBlank() || !inThis
                    || !m.content().toLowerCase(Locale.ROOT).contains(needle)) {
                continue;
            }
            found.add("- " + m.createdAt().truncatedTo(ChronoUnit.SECONDS) + (which.equals("all") ? " [" + m.sessionId() + "]" : "")
                    + (m.inContext() ? "" : " (no longer in context)") + ", then called "
                    + m.toolCalls().stream().map(MessageToolCall::name).collect(Collectors.joining(", ")) + ": "
                    + m.content().strip());
        }
        if (found.isEmpty()) {
            return "No earlier reasoning found" + (needle.isEmpty() ? "" : " containing '" + in.query().get().strip() + "'") + ".";
        }
        return "Your reasoning, newest first (" + found.size() + "):\n" + String.join("\n", found);
    }
}

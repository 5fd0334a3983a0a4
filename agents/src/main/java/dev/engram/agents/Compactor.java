package dev.engram.agents;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ModelCancelledException;
import dev.engram.framework.model.ModelException;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.NewMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * Frees the context window: the oldest half or so of the in-context messages is summarised by the
 * agent's model, the summary is stored as a (system) message, and the summarised messages are marked
 * out of context. They stay in recall memory and searchable.
 *
 * <p>The cut never falls between an assistant's tool calls and their results (it is always just
 * before a user message), and never evicts the newest user message or anything after it. Earlier
 * summaries are folded into the new one.
 */
final class Compactor {
    static final String SUMMARISER_PROMPT = """
            You maintain the memory of an AI agent. Summarise the conversation excerpt below so that the agent \
            can continue the conversation without it: keep facts about the user, decisions, commitments, open \
            questions and anything the agent promised to do, with names, numbers and dates. Write plain prose \
            of at most 300 words, in the third person ("the user", "the agent"). Include the earlier summary's \
            content if one is given.""";
    private static final int MAX_TOOL_CHARS = 500;

    private final Agent agent;
    private final AgentSettings settings;

    Compactor(Agent agent, AgentSettings settings) {
        this.agent = agent;
        this.settings = settings;
    }

    /** Summarises and evicts the older part of {@code inContext}; returns the summary stored. */
    String compact(String session, List<ConversationMessage> inContext, int tokensBefore) {
        List<ConversationMessage> summaries = new ArrayList<>();
        List<ConversationMessage> conversation = new ArrayList<>();
        for (ConversationMessage m : inContext) {
            (Prompts.isSummary(m) ? summaries : conversation).add(m);
        }
        int cut = cutPoint(conversation);
        if (cut <= 0) {
            throw new AgentException("Agent '" + agent.id() + "' cannot free its context window: everything in it belongs "
                    + "to the current message (" + tokensBefore + " tokens against a window of "
                    + agent.definition().contextWindowTokens() + "). Raise contextWindowTokens, shrink the blocks, or "
                    + "make tools return less.");
        }
        List<ConversationMessage> evicted = conversation.subList(0, cut);
        List<ConversationMessage> toSummarise = new ArrayList<>(summaries);
        toSummarise.addAll(evicted);
        String summary = summarise(toSummarise);

        // Store the summary before evicting, so that a crash in between loses nothing.
        settings.append(agent.scope(), NewMessage.system(session, Prompts.SUMMARY_PREFIX + summary));
        List<Long> ids = toSummarise.stream().map(ConversationMessage::id).toList();
        settings.store().messages().markOutOfContext(agent.scope(), ids);
        agent.tokens.forget(ids);
        int after = agent.compilePrompt().tokens();
        settings.events().accept(new AgentEvent.ContextCompacted(agent.scope(), evicted.size(), tokensBefore, after));
        return summary;
    }

    /** Whether {@link #compact} would find something to evict in {@code inContext}. */
    boolean canCompact(List<ConversationMessage> inContext) {
        return cutPoint(inContext.stream().filter(m -> !Prompts.isSummary(m)).toList()) > 0;
    }

    /**
     * Where to cut: evict {@code [0, cut)}. The cut is always at a user message (a user message never
     * sits between a tool call and its result), at or before the newest one, as near as possible to
     * half the conversation's tokens. Returns 0 when no cut is possible.
     */
    int cutPoint(List<ConversationMessage> conversation) {
        long total = 0;
        for (ConversationMessage m : conversation) {
            total += agent.tokens.count(m);
        }
        int target = conversation.size();
        long acc = 0;
        for (int i = 0; i < conversation.size(); i++) {
            acc += agent.tokens.count(conversation.get(i));
            if (acc * 2 >= total) {
                target = i + 1;
                break;
            }
        }
        int best = 0;
        int bestDistance = Integer.MAX_VALUE;
        for (int c = 1; c < conversation.size(); c++) {
            int distance = Math.abs(c - target);
            if (conversation.get(c).role() == MessageRole.USER && distance <= bestDistance) {
                best = c;
                bestDistance = distance;
            }
        }
        return best;
    }

    private String summarise(List<ConversationMessage> messages) {
        int maxChars = Math.max(2_000, agent.definition().contextWindowTokens() * 2);
        String transcript = Prompts.transcript(messages, MAX_TOOL_CHARS);
        if (transcript.length() > maxChars) {
            transcript = transcript.substring(transcript.length() - maxChars);
        }
        ChatModel model = settings.models().apply(agent.definition().model());
        try {
            String text = model.chat(ChatRequest.of(List.of(new ChatMessage.System(SUMMARISER_PROMPT),
                    new ChatMessage.User(transcript)))).message().text().strip();
            if (text.isEmpty()) {
                throw new AgentException("The model of agent '" + agent.id() + "' returned an empty summary while compacting "
                        + "the context window; nothing was evicted.");
            }
            return text;
        } catch (ModelCancelledException e) {
            throw e;
        } catch (ModelException e) {
            throw new AgentException("Agent '" + agent.id() + "' could not summarise its context window: " + e.getMessage()
                    + "; nothing was evicted.", e);
        }
    }
}

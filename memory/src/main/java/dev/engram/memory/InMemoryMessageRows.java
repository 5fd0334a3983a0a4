package dev.engram.memory;

import dev.engram.memory.spi.MessageRows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The messages of {@link InMemoryBackend}, whose ids are the backend's insertion positions. Its methods run inside
 * the backend's write or read, under its one lock, and record each change in its one undo log.
 */
interface InMemoryMessageRows extends MessageRows {
    /** Every message by id. */
    Map<Long, ConversationMessage> messageTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default List<ConversationMessage> insertMessages(Scope scope, List<NewMessage> list, Instant at) {
        List<ConversationMessage> out = new ArrayList<>();
        for (NewMessage m : list) {
            ConversationMessage c = new ConversationMessage(undo().position(), scope.agentId(), scope.userId(),
                    m.sessionId(), m.role(), m.content(), m.toolCalls(), m.toolCallId(), at, true, m.toolOutcome(), m.images(),
                    m.reasoning());
            undo().put(messageTable(), c.id(), c);
            out.add(c);
        }
        return out;
    }

    @Override
    default Optional<ConversationMessage> message(Scope scope, long id) {
        return Optional.ofNullable(messageTable().get(id)).filter(m -> m.scope().equals(scope));
    }

    @Override
    default List<ConversationMessage> listMessages(Scope scope, MessageQuery q) {
        List<ConversationMessage> matching = messageTable().values().stream()
                .filter(m -> m.scope().equals(scope))
                .filter(m -> q.sessionId().map(s -> s.equals(m.sessionId())).orElse(true))
                .filter(m -> q.afterId().map(a -> m.id() > a).orElse(true))
                .filter(m -> q.beforeId().map(b -> m.id() < b).orElse(true))
                .filter(m -> q.from().map(f -> !m.createdAt().isBefore(f)).orElse(true))
                .filter(m -> q.until().map(u -> m.createdAt().isBefore(u)).orElse(true))
                .filter(m -> !q.inContextOnly() || m.inContext())
                .toList();
        return q.newestFirst() ? matching.subList(Math.max(0, matching.size() - q.limit()), matching.size())
                : matching.subList(0, Math.min(q.limit(), matching.size()));
    }

    @Override
    default boolean updateMessageText(Scope scope, long id, String content, List<MessageToolCall> toolCalls,
            MessageReasoning reasoning) {
        Optional<ConversationMessage> m = message(scope, id);
        m.ifPresent(x -> undo().put(messageTable(), id, new ConversationMessage(x.id(), x.agentId(), x.userId(),
                x.sessionId(), x.role(), content, toolCalls, x.toolCallId(), x.createdAt(), x.inContext(), x.toolOutcome(),
                x.images(), reasoning)));
        return m.isPresent();
    }

    @Override
    default int markOutOfContext(Scope scope, Collection<Long> ids) {
        int changed = 0;
        for (Long id : new HashSet<>(ids)) {
            Optional<ConversationMessage> m = message(scope, id).filter(ConversationMessage::inContext);
            if (m.isPresent()) {
                ConversationMessage x = m.get();
                undo().put(messageTable(), id, x.withInContext(false));
                changed++;
            }
        }
        return changed;
    }
}

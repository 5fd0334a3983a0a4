package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every backend does when a stored message is corrected ({@link MessageStore#edit}): its content, tool calls and
 * reasoning change; its id, role, session, time, images and place in the context window stay; the change log says so
 * (for the search index); another scope's id, or a content over the limit, changes nothing.
 * {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class MessageEditConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope BEN = Scope.of("ben", "helper");

    /** The store under test, fresh for each test. */
    protected abstract MemoryStore store();

    @Test
    void anEditReplacesTheTextAndKeepsEverythingElse() {
        MemoryStore store = store();
        List<ConversationMessage> turn = store.messages().appendAll(ANA, List.of(NewMessage.user("s", "I live in Lisbn."),
                NewMessage.assistant("s", "Noted.", List.of(new MessageToolCall("c1", "send_message", "{\"message\":\"ok\"}")),
                        new MessageReasoning("thinking", "sig", List.of("EmwK")))));
        store.messages().markOutOfContext(ANA, List.of(turn.get(0).id()));
        long seq = store.changes().lastSeq();

        ConversationMessage user = store.messages().edit(ANA, turn.get(0).id(), "I live in Lisbon.", List.of(), MessageReasoning.NONE);
        ConversationMessage assistant = store.messages().edit(ANA, turn.get(1).id(), "Noted!",
                List.of(new MessageToolCall("c1", "send_message", "{\"message\":\"fixed\"}")),
                new MessageReasoning("better thinking", "", List.of("EmwK")));

        assertThat(user.content()).isEqualTo("I live in Lisbon.");
        assertThat(user.id()).isEqualTo(turn.get(0).id());
        assertThat(user.inContext()).isFalse();
        assertThat(user.createdAt()).isEqualTo(turn.get(0).createdAt());
        assertThat(user.role()).isEqualTo(MessageRole.USER);
        assertThat(store.messages().get(ANA, turn.get(1).id()).orElseThrow()).isEqualTo(assistant);
        assertThat(assistant.toolCalls()).containsExactly(new MessageToolCall("c1", "send_message", "{\"message\":\"fixed\"}"));
        assertThat(assistant.reasoning()).isEqualTo(new MessageReasoning("better thinking", "", List.of("EmwK")));
        assertThat(assistant.inContext()).isTrue();
        assertThat(store.messages().list(ANA, MessageQuery.all())).extracting(ConversationMessage::id)
                .containsExactly(turn.get(0).id(), turn.get(1).id());
        assertThat(store.changes().since(seq, 10)).extracting(ChangeEvent::entity, ChangeEvent::id).containsExactly(
                org.assertj.core.api.Assertions.tuple(ChangeEvent.Entity.MESSAGE, Long.toString(turn.get(0).id())),
                org.assertj.core.api.Assertions.tuple(ChangeEvent.Entity.MESSAGE, Long.toString(turn.get(1).id())));
    }

    @Test
    void anotherScopesMessageOrTooLongAContentChangesNothing() {
        MemoryStore store = store();
        ConversationMessage m = store.messages().append(ANA, NewMessage.user("s", "mine"));
        long seq = store.changes().lastSeq();
        assertThatThrownBy(() -> store.messages().edit(BEN, m.id(), "ben's now", List.of(), MessageReasoning.NONE))
                .isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> store.messages().edit(ANA, m.id() + 1000, "x", List.of(), MessageReasoning.NONE))
                .isInstanceOf(NotFoundException.class);
        String tooLong = "x".repeat(store.limits().maxTextChars() + 1);
        assertThatThrownBy(() -> store.messages().edit(ANA, m.id(), tooLong, List.of(), MessageReasoning.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MemoryLimits");
        assertThat(store.messages().get(ANA, m.id()).orElseThrow()).isEqualTo(m);
        assertThat(store.changes().lastSeq()).isEqualTo(seq);
    }
}

package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What every backend does with the model's own reasoning behind an assistant message: kept with the message (its text,
 * signature and encrypted parts, in order), read back by {@code get} and {@code list} and after an eviction, none for a
 * message without it, refused on any other role. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class MessageReasoningConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope BEN = Scope.of("ben", "helper");

    /** The store under test, fresh for each test. */
    protected abstract MemoryStore store();

    @Test
    void reasoningIsStoredWithItsAssistantMessageAndReadBack() {
        MemoryStore store = store();
        MessageReasoning thought = new MessageReasoning("The user wants Lisbon's weather; one call.\nThen answer.", "sig-Eq1",
                List.of("EmwKAhgB", "c2Vjb25k"));
        List<ConversationMessage> turn = store.messages().appendAll(ANA, List.of(
                NewMessage.user("s", "Weather in Lisbon?"),
                NewMessage.assistant("s", "Checking.", List.of(new MessageToolCall("c1", "weather", "{}")), thought),
                NewMessage.tool("s", "c1", "sunny"),
                NewMessage.assistant("s", "Sunny.", List.of(), MessageReasoning.of("Say it.")),
                NewMessage.assistant("s", "Anything else?", List.of())));
        store.messages().append(BEN, NewMessage.assistant("s", "ben's", List.of(), MessageReasoning.of("ben's thought")));

        assertThat(turn.get(1).reasoning()).isEqualTo(thought);
        List<ConversationMessage> listed = store.messages().list(ANA, MessageQuery.all());
        assertThat(listed).isEqualTo(turn);
        assertThat(listed).extracting(ConversationMessage::reasoning).containsExactly(MessageReasoning.NONE, thought,
                MessageReasoning.NONE, MessageReasoning.of("Say it."), MessageReasoning.NONE);
        assertThat(store.messages().get(ANA, turn.get(1).id()).orElseThrow().reasoning()).isEqualTo(thought);
        assertThat(store.messages().get(BEN, turn.get(1).id())).isEmpty();
        assertThat(store.messages().list(BEN, MessageQuery.all()).getFirst().reasoning()).isEqualTo(MessageReasoning.of("ben's thought"));
    }

    @Test
    void anEvictedMessageKeepsItsReasoning() {
        MemoryStore store = store();
        ConversationMessage m = store.messages().append(ANA, NewMessage.assistant("s", "", List.of(),
                new MessageReasoning("", "", List.of("EmwK"))));
        store.messages().markOutOfContext(ANA, List.of(m.id()));
        ConversationMessage evicted = store.messages().get(ANA, m.id()).orElseThrow();
        assertThat(evicted.inContext()).isFalse();
        assertThat(evicted.reasoning()).isEqualTo(new MessageReasoning("", "", List.of("EmwK")));
        assertThat(evicted.reasoning().hiddenOnly()).isTrue();
    }

    @Test
    void reasoningOnAnotherRoleIsRefusedAndNothingIsStored() {
        MemoryStore store = store();
        assertThatThrownBy(() -> store.messages().append(ANA, new NewMessage("s", MessageRole.USER, "hi", List.of(), Optional.empty(),
                Optional.empty(), List.of(), MessageReasoning.of("not mine"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("only assistant messages carry the model's reasoning, not USER");
        assertThatThrownBy(() -> new NewMessage("s", MessageRole.TOOL, "r", List.of(), Optional.of("c1"), Optional.of(ToolOutcome.OK),
                List.of(), new MessageReasoning("", "", List.of("x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("only assistant messages carry the model's reasoning, not TOOL");
        assertThatThrownBy(() -> MessageReasoning.of(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("reasoning text must not be null");
        assertThat(store.messages().list(ANA, MessageQuery.all())).isEmpty();
    }
}

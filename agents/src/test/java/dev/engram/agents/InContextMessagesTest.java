package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What an agent keeps of its context between steps is always what the store holds in context. */
class InContextMessagesTest {
    private final MemoryStore store = MemoryStore.inMemory();
    private final Scope scope = Scope.of("ana", "helper");
    private final InContextMessages context = new InContextMessages(store, scope, 1_000);

    private List<String> contents() {
        return context.messages().stream().map(ConversationMessage::content).toList();
    }

    private List<String> stored() {
        return store.messages().list(scope, MessageQuery.inContext()).stream().map(ConversationMessage::content).toList();
    }

    @Test
    void whatIsAddedIsReadAndWhatLeavesTheContextAnywhereIsNotKept() {
        store.messages().append(scope, NewMessage.user("default", "one"));
        store.messages().append(scope, NewMessage.user("default", "two"));
        assertThat(contents()).containsExactly("one", "two");
        store.messages().append(scope, NewMessage.user("default", "three"));
        assertThat(contents()).containsExactly("one", "two", "three");

        // another process compacts: the oldest leave the context, a summary and a message arrive
        List<Long> ids = store.messages().list(scope, MessageQuery.inContext()).stream().map(ConversationMessage::id).toList();
        store.messages().markOutOfContext(scope, ids.subList(0, 2));
        store.messages().append(scope, NewMessage.system("default", "summary"));
        assertThat(contents()).containsExactly("three", "summary").isEqualTo(stored());

        // a reset takes everything out, then two messages arrive: the same count as before, another context
        store.messages().markOutOfContext(scope, store.messages().list(scope, MessageQuery.inContext()).stream()
                .map(ConversationMessage::id).toList());
        store.messages().append(scope, NewMessage.user("default", "four"));
        store.messages().append(scope, NewMessage.user("default", "five"));
        assertThat(contents()).containsExactly("four", "five").isEqualTo(stored());
        assertThat(context.messages()).isSameAs(context.messages());
        // the statistics come with the messages they describe
        assertThat(context.read().stats().messagesInContext()).isEqualTo(2);
        assertThat(context.read().stats().messages()).isEqualTo(store.messages().count(scope));
    }

    @Test
    void theOldestLeavingIsFollowedWithoutReadingTheRestAgainAndOneLeavingFromTheMiddleIsNot() {
        for (String text : List.of("one", "two", "three", "four")) {
            store.messages().append(scope, NewMessage.user("default", text));
        }
        List<ConversationMessage> before = context.messages();
        List<Long> ids = before.stream().map(ConversationMessage::id).toList();
        // a trim (as each step of a full window compacts): the two oldest leave, one arrives, the count drops by one
        store.messages().markOutOfContext(scope, ids.subList(0, 2));
        store.messages().append(scope, NewMessage.user("default", "five"));
        List<ConversationMessage> after = context.messages();
        assertThat(after).extracting(ConversationMessage::content).containsExactly("three", "four", "five")
                .isEqualTo(stored());
        // the kept messages are the ones read before, not read again
        assertThat(after.get(0)).isSameAs(before.get(2));
        assertThat(after.get(1)).isSameAs(before.get(3));

        // one from the middle leaves as the oldest would by the count (one out, one in): read again
        store.messages().markOutOfContext(scope, List.of(after.get(1).id()));
        store.messages().append(scope, NewMessage.user("default", "six"));
        assertThat(contents()).containsExactly("three", "five", "six").isEqualTo(stored());
        // every kept one leaves and as many arrive
        store.messages().markOutOfContext(scope, context.messages().stream().map(ConversationMessage::id).toList());
        for (String text : List.of("seven", "eight", "nine")) {
            store.messages().append(scope, NewMessage.user("default", text));
        }
        assertThat(contents()).containsExactly("seven", "eight", "nine").isEqualTo(stored());
    }

    @Test
    void aCorrectedMessageIsReadAgainAndOtherAgentsCorrectionsAreNot() {
        ConversationMessage one = store.messages().append(scope, NewMessage.user("default", "one"));
        store.messages().append(scope, NewMessage.user("default", "two"));
        assertThat(contents()).containsExactly("one", "two");
        store.messages().edit(scope, one.id(), "one, corrected", List.of(), MessageReasoning.NONE);
        assertThat(contents()).containsExactly("one, corrected", "two").isEqualTo(stored());
        store.messages().append(scope, NewMessage.user("default", "three"));
        assertThat(contents()).containsExactly("one, corrected", "two", "three").isEqualTo(stored());
        ConversationMessage other = store.messages().append(Scope.of("ana", "other"), NewMessage.user("default", "theirs"));
        store.messages().edit(Scope.of("ana", "other"), other.id(), "theirs, corrected", List.of(), MessageReasoning.NONE);
        assertThat(contents()).isEqualTo(stored());
    }

    @Test
    void onlyTheUsersEventsAreReadSoAnotherUsersManyWritesDoNotReadTheContextAgain() {
        List<List<ChangeEvent>> heard = new ArrayList<>();
        InContextMessages followed = new InContextMessages(store, scope, 1_000, heard::add);
        store.messages().append(scope, NewMessage.user("default", "one"));
        List<ConversationMessage> before = followed.messages();
        // more of another user's events than a read looks through: the whole log's read would count them as a change
        Scope ben = Scope.of("ben", "helper");
        for (int i = 0; i < 1_200; i++) {
            store.messages().append(ben, NewMessage.user("default", "ben " + i));
        }
        ConversationMessage coach = store.messages().append(Scope.of("ana", "coach"), NewMessage.user("default", "coach's"));
        ConversationMessage two = store.messages().append(scope, NewMessage.user("default", "two"));
        heard.clear();

        List<ConversationMessage> after = followed.messages();
        assertThat(after).extracting(ConversationMessage::content).containsExactly("one", "two");
        assertThat(after.getFirst()).isSameAs(before.getFirst()); // kept, not read again
        // the stretch heard is the user's events since the last read, other agents' of the user included
        assertThat(heard).hasSize(1);
        assertThat(heard.getFirst()).extracting(ChangeEvent::userId, ChangeEvent::id)
                .containsExactly(tuple("ana", Long.toString(coach.id())), tuple("ana", Long.toString(two.id())));
    }

    @Test
    void aConversationSeesOnlyItsOwnMessagesAndTheAgentsHistoryNoConversations() {
        store.messages().append(scope, NewMessage.user("default", "own"));
        store.messages().append(scope, NewMessage.user("conv-a", "in a"));
        store.messages().append(scope, NewMessage.user("scheduled", "a reminder"));
        store.messages().append(scope, NewMessage.user("conv-b", "in b"));
        assertThat(context.read("default").messages()).extracting(ConversationMessage::content)
                .containsExactly("own", "a reminder");
        assertThat(context.read("scheduled").messages()).extracting(ConversationMessage::content)
                .containsExactly("own", "a reminder");
        assertThat(context.read("conv-a").messages()).extracting(ConversationMessage::content).containsExactly("in a");
        assertThat(context.read("conv-b").messages()).extracting(ConversationMessage::content).containsExactly("in b");
        assertThat(context.read("conv-none").messages()).isEmpty();
        // the statistics stay the agent's
        assertThat(context.read("conv-a").stats().messagesInContext()).isEqualTo(4);
    }
}

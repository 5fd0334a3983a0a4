package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the agent stored itself is taken into its kept context as stored, without reading it back, and only while the
 * change log shows that nothing else happened: every other write (the API's, another store's over the same file, a
 * correction, an eviction, a write that rolled back) is read from the store.
 */
class InContextOwnWritesTest {
    @TempDir
    Path dir;
    private MemoryStore store;
    private final Scope scope = Scope.of("ana", "helper");
    private InContextMessages context;

    @BeforeEach
    void open() {
        store = MemoryStore.sqlite(dir.resolve("memory.db"));
        context = new InContextMessages(store, scope, 1_000);
        store.messages().append(scope, NewMessage.user("default", "one"));
        assertThat(contents()).containsExactly("one");
    }

    @AfterEach
    void close() {
        store.close();
    }

    private List<String> contents() {
        return context.messages().stream().map(ConversationMessage::content).toList();
    }

    private List<String> stored() {
        return store.messages().list(scope, MessageQuery.inContext()).stream().map(ConversationMessage::content).toList();
    }

    private ConversationMessage mine(String text) {
        ConversationMessage m = store.messages().append(scope, NewMessage.user("default", text));
        context.wrote(List.of(m));
        return m;
    }

    @Test
    void whatTheAgentStoredIsKeptAsStoredWithoutReadingItBack() {
        ConversationMessage two = mine("two");
        ConversationMessage three = mine("three");
        List<ConversationMessage> now = context.messages();
        assertThat(now).extracting(ConversationMessage::content).containsExactly("one", "two", "three").isEqualTo(stored());
        // the very objects the store returned when they were written: not read again
        assertThat(now.get(1)).isSameAs(two);
        assertThat(now.get(2)).isSameAs(three);
        // another agent's writes in between do not matter
        store.messages().append(Scope.of("ana", "other"), NewMessage.user("default", "theirs"));
        ConversationMessage four = mine("four");
        assertThat(context.messages().getLast()).isSameAs(four);
        assertThat(contents()).isEqualTo(stored());
    }

    @Test
    void aMessageAddedThroughTheApiBesideTheAgentsOwnIsRead() {
        mine("two");
        store.messages().append(scope, NewMessage.user("default", "from the API"));
        mine("three");
        assertThat(contents()).containsExactly("one", "two", "from the API", "three").isEqualTo(stored());
    }

    @Test
    void aMessageAddedByAnotherStoreOverTheSameFileIsRead() {
        try (MemoryStore other = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            mine("two");
            other.messages().append(scope, NewMessage.user("default", "from another server"));
            assertThat(contents()).containsExactly("one", "two", "from another server").isEqualTo(stored());
            ConversationMessage three = mine("three");
            other.messages().edit(scope, three.id(), "three, corrected elsewhere", List.of(), MessageReasoning.NONE);
            assertThat(contents()).containsExactly("one", "two", "from another server", "three, corrected elsewhere")
                    .isEqualTo(stored());
        }
    }

    @Test
    void theAgentsOwnMessageCorrectedBeforeTheNextReadIsReadCorrected() {
        ConversationMessage two = mine("two");
        store.messages().edit(scope, two.id(), "two, corrected", List.of(), MessageReasoning.NONE);
        assertThat(contents()).containsExactly("one", "two, corrected").isEqualTo(stored());
    }

    @Test
    void aNotedWriteThatRolledBackIsNotShown() {
        assertThatThrownBy(() -> store.useTransaction(tx -> {
            context.wrote(List.of(tx.messages().append(scope, NewMessage.user("default", "rolled back"))));
            throw new IllegalStateException("the step failed");
        })).hasMessage("the step failed");
        assertThat(contents()).containsExactly("one").isEqualTo(stored());
        mine("two");
        assertThat(contents()).containsExactly("one", "two").isEqualTo(stored());
    }

    @Test
    void messagesTakenOutOfTheContextBesideTheAgentsOwnWritesLeaveIt() {
        mine("two");
        mine("three");
        assertThat(contents()).containsExactly("one", "two", "three");
        // a reset through the API: every message leaves, and the agent goes on writing
        store.messages().markOutOfContext(scope, store.messages().list(scope, MessageQuery.inContext()).stream()
                .map(ConversationMessage::id).toList());
        mine("four");
        assertThat(contents()).containsExactly("four").isEqualTo(stored());
        // the oldest leave (a trim), the agent writes
        mine("five");
        store.messages().markOutOfContext(scope, List.of(context.messages().getFirst().id()));
        mine("six");
        assertThat(contents()).containsExactly("five", "six").isEqualTo(stored());
        // one from the middle leaves: read again
        mine("seven");
        assertThat(contents()).containsExactly("five", "six", "seven");
        store.messages().markOutOfContext(scope, List.of(context.messages().get(1).id()));
        mine("eight");
        assertThat(contents()).containsExactly("five", "seven", "eight").isEqualTo(stored());
    }

    @Test
    void aTurnsFirstStepsOwnWritesDoNotMakeTheNextReadReadTheWholeContextAgain() {
        ConversationMessage first = context.messages().getFirst();
        // a turn: its start reads, its message is kept as stored, its step's writes are noted; the next turn reads
        for (int turn = 0; turn < 3; turn++) {
            context.read();
            mine("turn " + turn);
            assertThat(context.withOwnWrites("default").messages().getLast().content()).isEqualTo("turn " + turn);
            mine("step of turn " + turn);
            assertThat(contents()).isEqualTo(stored());
            // the oldest message is the very object read first: the whole context was not read again
            assertThat(context.messages().getFirst()).isSameAs(first);
        }
    }

    @Test
    void aKeptOwnWriteCorrectedElsewhereBeforeTheNextReadIsReadCorrected() {
        try (MemoryStore other = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            context.read();
            ConversationMessage two = mine("two");
            context.withOwnWrites("default");
            other.messages().edit(scope, two.id(), "two, corrected elsewhere", List.of(), MessageReasoning.NONE);
            assertThat(contents()).containsExactly("one", "two, corrected elsewhere").isEqualTo(stored());
            // and a message another server added before the agent's own is read too
            context.read();
            other.messages().append(scope, NewMessage.user("default", "from another server"));
            mine("three");
            context.withOwnWrites("default");
            assertThat(contents()).containsExactly("one", "two, corrected elsewhere", "from another server", "three")
                    .isEqualTo(stored());
        }
    }

    @Test
    void aKeptOwnWriteThatRolledBackIsNotShownAtTheNextRead() {
        context.read();
        assertThatThrownBy(() -> store.useTransaction(tx -> {
            context.wrote(List.of(tx.messages().append(scope, NewMessage.user("default", "rolled back"))));
            throw new IllegalStateException("the write failed");
        })).hasMessage("the write failed");
        assertThat(context.withOwnWrites("default").messages()).extracting(ConversationMessage::content)
                .containsExactly("one", "rolled back");
        assertThat(contents()).containsExactly("one").isEqualTo(stored());
    }
}

package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Part of a unit of work undone alone ({@link MemoryStore#attempt}), on SQLite; refused where the backend cannot. */
class AttemptTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    @TempDir
    Path dir;

    private static List<String> contents(MemoryStore store) {
        return store.messages().list(ANA, MessageQuery.all()).stream().map(ConversationMessage::content).toList();
    }

    private static List<String> loggedIds(MemoryStore store) {
        return store.changes().since(0, 100).stream().map(ChangeEvent::id).toList();
    }

    @Test
    void keptWritesCommitWithTheUnitAndUndoneOnesLeaveNoRowAndNoEvent() {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("m.db"))) {
            store.blocks().create(ANA, NewBlock.builder("human").value("Ana").limit(100).build());
            long seq = store.changes().lastSeq();
            Attempt<String> undone = store.inTransaction(tx -> {
                tx.messages().append(ANA, NewMessage.user("s", "before"));
                Attempt<String> kept = tx.attempt(() -> tx.messages().append(ANA, NewMessage.user("s", "kept")).content(),
                        r -> true);
                assertThat(kept.kept()).isTrue();
                // a tool that writes, then reports that it failed: its writes go, the unit goes on
                Attempt<String> failed = tx.attempt(() -> {
                    tx.messages().append(ANA, NewMessage.user("s", "half-done"));
                    tx.blocks().replace(ANA, "human", "half-done", BlockStore.ANY_VERSION);
                    return "failed";
                }, r -> !r.equals("failed"));
                tx.messages().append(ANA, NewMessage.user("s", "after"));
                return failed;
            });
            assertThat(undone.kept()).isFalse();
            assertThat(undone.result()).isEqualTo("failed");
            assertThat(undone.failure()).isEmpty();
            assertThat(contents(store)).containsExactly("before", "kept", "after");
            assertThat(store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Ana");
            assertThat(store.changes().since(seq, 100)).hasSize(3)
                    .allMatch(e -> e.entity() == ChangeEvent.Entity.MESSAGE);
        }
    }

    @Test
    void aFailedStoreCallInsideIsUndoneWithoutSpoilingTheUnitAndAThrowSpoilsIt() {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("m.db"))) {
            Attempt<Boolean> caught = store.inTransaction(tx -> {
                tx.messages().append(ANA, NewMessage.user("s", "kept"));
                Attempt<Boolean> a = tx.attempt(() -> {
                    tx.messages().append(ANA, NewMessage.user("s", "half-done"));
                    try {
                        tx.blocks().append(ANA, "missing", "x", BlockStore.ANY_VERSION);
                    } catch (NotFoundException e) {
                        // a tool that catches the failure and says it succeeded anyway
                    }
                    return true;
                }, r -> r);
                return a;
            });
            assertThat(caught.kept()).isFalse();
            assertThat(caught.failure()).containsInstanceOf(NotFoundException.class);
            assertThat(contents(store)).containsExactly("kept");

            // work that writes and then throws: undone, and the unit with it
            assertThatThrownBy(() -> store.useTransaction(tx -> {
                tx.messages().append(ANA, NewMessage.user("s", "lost with the unit"));
                try {
                    tx.attempt(() -> {
                        tx.messages().append(ANA, NewMessage.user("s", "thrown"));
                        throw new IllegalStateException("the tool broke");
                    }, r -> true);
                } catch (IllegalStateException e) {
                    // caught: the unit is spoiled all the same
                }
            })).isInstanceOf(MemoryException.class).hasMessageContaining("the tool broke");
            assertThat(contents(store)).containsExactly("kept");
            assertThat(loggedIds(store)).hasSize(1);
        }
    }

    @Test
    void anAttemptOutsideAUnitOrOnABackendWithoutSavepointsIsRefusedAndRunsNothing() {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("m.db"))) {
            assertThat(store.supportsAttempts()).isTrue();
            assertThatThrownBy(() -> store.attempt(() -> store.messages().append(ANA, NewMessage.user("s", "x")), r -> true))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("inTransaction");
            assertThat(contents(store)).isEmpty();
        }
        MemoryStore memory = MemoryStore.inMemory();
        assertThat(memory.supportsAttempts()).isFalse();
        assertThatThrownBy(() -> memory.useTransaction(tx -> tx.attempt(
                () -> tx.messages().append(ANA, NewMessage.user("s", "x")), r -> true)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("supportsAttempts");
        assertThat(contents(memory)).isEmpty();
    }
}

package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What every backend returns for one user's stretch of the change log ({@link ChangeLog#since(String, long, int)}): exactly
 * the events of the whole log ({@link ChangeLog#since(long, int)}) that name the user, in order, and never another
 * user's; a block shared between two agents of the user is one event an agent reading its user's events sees, whoever
 * changed it; committed events only; bad input rejected. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class UserChangeLogConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope BEN = Scope.of("ben", "helper");

    /** The store under test, fresh for each test. */
    protected abstract MemoryStore store();

    /** Writes of both users, interleaved: messages, a block, an archival entry, a note. */
    private void interleavedWrites(MemoryStore store) {
        store.messages().append(ANA, NewMessage.user("s", "ana one"));
        store.messages().append(BEN, NewMessage.user("s", "ben one"));
        store.blocks().create(BEN, NewBlock.builder("human").value("ben's").limit(100).build());
        store.archival().insert(ANA, NewArchivalEntry.of("ana's fact"));
        store.notes().save("ben", "ben's note");
        store.messages().append(ANA_COACH, NewMessage.user("s", "coach one"));
        store.notes().save("ana", "ana's note");
        store.messages().append(BEN, NewMessage.user("s", "ben two"));
    }

    @Test
    void aUsersEventsAreTheWholeLogsEventsOfThatUserInOrderAndNoOtherUsers() {
        MemoryStore store = store();
        long before = store.changes().lastSeq();
        interleavedWrites(store);
        List<ChangeEvent> all = store.changes().since(before, 100);
        assertThat(all).extracting(ChangeEvent::userId).containsOnly("ana", "ben");

        List<ChangeEvent> ana = store.changes().since("ana", before, 100);
        List<ChangeEvent> ben = store.changes().since("ben", before, 100);
        assertThat(ana).isEqualTo(all.stream().filter(e -> e.userId().equals("ana")).toList());
        assertThat(ben).isEqualTo(all.stream().filter(e -> e.userId().equals("ben")).toList());
        assertThat(ana).extracting(ChangeEvent::entity, ChangeEvent::agentId).containsExactly(
                tuple(ChangeEvent.Entity.MESSAGE, Optional.of("helper")),
                tuple(ChangeEvent.Entity.ARCHIVAL, Optional.of("helper")),
                tuple(ChangeEvent.Entity.MESSAGE, Optional.of("coach")),
                tuple(ChangeEvent.Entity.NOTE, Optional.empty()));
        assertThat(ben).extracting(ChangeEvent::entity).containsExactly(ChangeEvent.Entity.MESSAGE,
                ChangeEvent.Entity.BLOCK, ChangeEvent.Entity.NOTE, ChangeEvent.Entity.MESSAGE);
        assertThat(store.changes().since("carla", before, 100)).isEmpty();
    }

    @Test
    void theStretchStartsAfterTheGivenSequenceNumberAndStopsAtTheLimit() {
        MemoryStore store = store();
        long before = store.changes().lastSeq();
        interleavedWrites(store);
        List<ChangeEvent> ana = store.changes().since("ana", before, 100);

        assertThat(store.changes().since("ana", before, 2)).isEqualTo(ana.subList(0, 2));
        assertThat(store.changes().since("ana", ana.get(1).seq(), 100)).isEqualTo(ana.subList(2, 4));
        // from a sequence number between two of the user's events (another user's event): the next of the user's
        assertThat(store.changes().since("ana", ana.get(1).seq() + 1, 1)).containsExactly(ana.get(2));
        assertThat(store.changes().since("ana", ana.getLast().seq(), 100)).isEmpty();
        assertThat(store.changes().since("ana", store.changes().lastSeq(), 100)).isEmpty();
    }

    @Test
    void aSharedBlocksChangesReachTheUsersReaderWhoeverMakesThem() {
        MemoryStore store = store();
        store.agents().create(ANA, "helper", "{}");
        store.agents().create(ANA_COACH, "coach", "{}");
        Block human = store.blocks().create(ANA, NewBlock.builder("human").value("shared fact").limit(100).build());
        long before = store.changes().lastSeq();
        store.blocks().share(ANA, "human", "coach", MemoryPermission.READ_WRITE);
        store.blocks().replace(ANA, "human", "fact by the owner", human.version());
        // the coach changes it through its share: the event is the owner's block's, of the same user
        store.blocks().replace(ANA_COACH, "human", "fact by the coach", BlockStore.ANY_VERSION);
        store.blocks().create(BEN, NewBlock.builder("human").value("ben's").limit(100).build());
        store.blocks().unshare(ANA, "human", "coach");

        assertThat(store.changes().since("ana", before, 100))
                .extracting(ChangeEvent::entity, ChangeEvent::id, ChangeEvent::op, ChangeEvent::agentId).containsExactly(
                        tuple(ChangeEvent.Entity.BLOCK, "human", ChangeEvent.Op.UPSERT, Optional.of("coach")),
                        tuple(ChangeEvent.Entity.BLOCK, "human", ChangeEvent.Op.UPSERT, Optional.of("helper")),
                        tuple(ChangeEvent.Entity.BLOCK, "human", ChangeEvent.Op.UPSERT, Optional.of("helper")),
                        tuple(ChangeEvent.Entity.BLOCK, "human", ChangeEvent.Op.DELETE, Optional.of("coach")));
        assertThat(store.changes().since("ben", before, 100)).extracting(ChangeEvent::entity, ChangeEvent::agentId)
                .containsExactly(tuple(ChangeEvent.Entity.BLOCK, Optional.of("helper")));
    }

    @Test
    void aRolledBackUnitOfWorkLeavesNoEventOfTheUser() {
        MemoryStore store = store();
        long before = store.changes().lastSeq();
        assertThatThrownBy(() -> store.inTransaction(s -> {
            s.messages().append(ANA, NewMessage.user("s", "undone"));
            throw new IllegalStateException("the unit fails");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(store.changes().since("ana", before, 100)).isEmpty();
        ConversationMessage kept = store.inTransaction(s -> s.messages().append(ANA, NewMessage.user("s", "kept")));
        assertThat(store.changes().since("ana", before, 100)).extracting(ChangeEvent::id)
                .containsExactly(Long.toString(kept.id()));
    }

    @Test
    void aBlankUserOrANonPositiveLimitIsRejectedAndChangesNothing() {
        MemoryStore store = store();
        store.messages().append(ANA, NewMessage.user("s", "one"));
        long seq = store.changes().lastSeq();
        assertThatThrownBy(() -> store.changes().since(" ", 0, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user id");
        assertThatThrownBy(() -> store.changes().since((String) null, 0, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user id");
        assertThatThrownBy(() -> store.changes().since("ana", 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max must be positive");
        assertThat(store.changes().lastSeq()).isEqualTo(seq);
        assertThat(store.changes().since("ana", 0, 10)).hasSize(1);
    }
}

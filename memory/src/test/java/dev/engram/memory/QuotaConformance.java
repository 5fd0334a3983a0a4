package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/**
 * What {@link MemoryStore#withQuotas} promises on every backend: each write counts its user's usage inside its own
 * transaction, so that writers racing from many threads (or many units of work) never end past a quota, and a write
 * refused for a quota changes nothing. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class QuotaConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final int THREADS = 8;

    /** The open store under test (without quotas: the tests take views of it). */
    protected abstract MemoryStore store();

    /**
     * Runs {@code write(i)} for i in 0..THREADS-1, all released at once; returns how many succeeded, and fails the test
     * on any exception but a {@link QuotaExceededException}.
     */
    private static int racing(IntConsumer write) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> done = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(THREADS)) {
            for (int t = 0; t < THREADS; t++) {
                int i = t;
                done.add(pool.submit(() -> {
                    start.await();
                    try {
                        write.accept(i);
                        return true;
                    } catch (QuotaExceededException e) {
                        return false;
                    }
                }));
            }
            start.countDown();
            int ok = 0;
            for (Future<Boolean> f : done) {
                ok += f.get(60, TimeUnit.SECONDS) ? 1 : 0;
            }
            return ok;
        }
    }

    @Test
    void agentsCreatedFromManyThreadsAtOnceNeverPassTheAgentQuota() throws Exception {
        MemoryStore store = store().withQuotas(UserQuotas.defaults().withAgents(3));
        int created = racing(i -> store.agents().create(Scope.of("ana", "agent-" + i), "Agent " + i, "{}"));
        assertThat(created).isEqualTo(3);
        assertThat(store.usage("ana").agents()).isEqualTo(3);
        assertThat(store.agents().list("ana")).hasSize(3);
    }

    @Test
    void agentsWithTheirBlocksCreatedAsUnitsAtOnceNeverPassEitherQuotaAndALosingUnitLeavesNothing() throws Exception {
        MemoryStore store = store().withQuotas(UserQuotas.defaults().withAgents(5).withBlocks(4));
        int created = racing(i -> store.useTransaction(tx -> {
            Scope scope = Scope.of("ana", "agent-" + i);
            tx.agents().create(scope, "Agent " + i, "{}");
            tx.blocks().create(scope, NewBlock.builder("persona").value("I am " + i).build());
            tx.blocks().create(scope, NewBlock.builder("human").value("Ana").build());
        }));
        assertThat(created).isEqualTo(2);
        UserUsage usage = store.usage("ana");
        assertThat(usage.agents()).as("an agent whose blocks were refused is not kept").isEqualTo(2);
        assertThat(usage.blocks()).isEqualTo(4);
    }

    @Test
    void archivalEntriesAndNotesWrittenFromManyThreadsNeverPassTheirQuotas() throws Exception {
        MemoryStore store = store().withQuotas(UserQuotas.defaults().withArchivalEntries(3).withNotes(2));
        store.agents().create(ANA, "Helper", "{}");
        assertThat(racing(i -> store.archival().insert(ANA, NewArchivalEntry.of("fact " + i)))).isEqualTo(3);
        assertThat(racing(i -> store.notes().save("ana", "note " + i))).isEqualTo(2);
        assertThat(store.usage("ana").archivalEntries()).isEqualTo(3);
        assertThat(store.usage("ana").notes()).isEqualTo(2);
        assertThat(store.archival().count(ANA)).isEqualTo(3);
    }

    @Test
    void bytesAppendedFromManyThreadsNeverPassTheStoredBytesQuota() throws Exception {
        MemoryStore store = store().withQuotas(UserQuotas.defaults().withStoredBytes(50));
        store.blocks().create(ANA, NewBlock.builder("human").value("0123456789").limit(1_000).build()); // 10 bytes
        int appended = racing(i -> store.blocks().append(ANA, "human", "abcdefghij", BlockStore.ANY_VERSION));
        assertThat(appended).isEqualTo(4);
        assertThat(store.usage("ana").storedBytes()).isEqualTo(50);
    }

    @Test
    void eachWriteRefusedForAQuotaNamesItAndChangesNothing() {
        MemoryStore raw = store();
        MemoryStore store = raw.withQuotas(new UserQuotas(1, 1, 1, 1, 40));
        store.agents().create(ANA, "Helper", "{}");
        store.blocks().create(ANA, NewBlock.builder("human").value("Ana").limit(100).build()); // 3 bytes
        store.archival().insert(ANA, NewArchivalEntry.labelled("trip", "Lisbon", List.of())); // 6 bytes
        Note note = store.notes().save("ana", "tea");                                          // 3 bytes
        UserUsage before = store.usage("ana");
        long seq = raw.changes().lastSeq();

        assertRefused(() -> store.agents().create(Scope.of("ana", "second"), "Second", "{}"),
                "User 'ana' has 1 agents; this would make 2, past the quota of 1 agents per user. Nothing was stored: "
                        + "delete an agent first.");
        assertRefused(() -> store.blocks().create(ANA, NewBlock.builder("plan").value("x").build()),
                "User 'ana' has 1 blocks; this would make 2, past the quota of 1 blocks per user.");
        assertRefused(() -> store.archival().insert(ANA, NewArchivalEntry.of("more")),
                "User 'ana' has 1 archival entries; this would make 2, past the quota of 1 archival entries per user.");
        assertRefused(() -> store.notes().save("ana", "more"), "User 'ana' has 1 notes; this would make 2, past the quota of "
                + "1 notes per user. Nothing was stored: delete notes first.");
        assertRefused(() -> store.blocks().append(ANA, "human", "x".repeat(29), BlockStore.ANY_VERSION),
                "User 'ana' stores 12 bytes in blocks, archival memory and notes; this would add 29, past the quota of 40 "
                        + "bytes. Nothing was stored: delete or shorten blocks, archival entries or notes first.");
        assertRefused(() -> store.archival().append(ANA, "trip", "y".repeat(29)), "this would add 29, past the quota of 40");
        assertRefused(() -> store.notes().update("ana", note.id(), "z".repeat(32)), "this would add 29, past the quota of 40");
        assertRefused(() -> store.blocks().archive(ANA, "human", true), "has 1 archival entries; this would make 2");

        assertThat(store.usage("ana")).isEqualTo(before);
        assertThat(raw.changes().lastSeq()).as("change log after refused writes").isEqualTo(seq);
        assertThat(store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Ana");
        assertThat(store.notes().get("ana", note.id()).orElseThrow().content()).isEqualTo("tea");
        // growth up to the quota passes; the same store without the view is not limited
        assertThat(store.blocks().append(ANA, "human", "x".repeat(28), BlockStore.ANY_VERSION).value()).hasSize(31);
        raw.notes().save("ana", "another");
        assertThat(raw.usage("ana").notes()).isEqualTo(2);
    }

    @Test
    void aUserPastAQuotaMayStillShrinkAndDeleteButNotGrow() {
        MemoryStore raw = store();
        raw.agents().create(ANA, "Helper", "{}");
        raw.blocks().create(ANA, NewBlock.builder("human").value("0123456789").limit(100).build());
        raw.archival().insert(ANA, NewArchivalEntry.of("one"));
        ArchivalEntry two = raw.archival().insert(ANA, NewArchivalEntry.of("two"));
        MemoryStore store = raw.withQuotas(UserQuotas.defaults().withArchivalEntries(1).withStoredBytes(5)); // lowered since

        assertThat(store.blocks().replace(ANA, "human", "012", BlockStore.ANY_VERSION).value()).isEqualTo("012");
        assertThat(store.archival().delete(ANA, two.id())).isTrue();
        assertRefused(() -> store.blocks().append(ANA, "human", "3", BlockStore.ANY_VERSION), "past the quota of 5 bytes");
        assertThat(store.usage("ana")).isEqualTo(new UserUsage(1, 1, 1, 0, 6));
    }

    @Test
    void aUnitOfWorkThatWouldPassAQuotaStoresNothingAndItsViewSharesTheStoresUnits() {
        MemoryStore raw = store();
        MemoryStore store = raw.withQuotas(UserQuotas.defaults().withAgents(2));
        long seq = raw.changes().lastSeq();
        Throwable thrown = catchThrowable(() -> raw.useTransaction(tx -> {
            store.agents().create(Scope.of("ana", "one"), "One", "{}");
            assertThat(raw.isInTransaction()).isTrue();
            assertThat(store.isInTransaction()).as("the view joins the store's unit").isTrue();
            store.agents().create(Scope.of("ana", "two"), "Two", "{}");
            store.agents().create(Scope.of("ana", "three"), "Three", "{}");
        }));
        assertThat(thrown).isInstanceOf(QuotaExceededException.class).hasMessageContaining("has 2 agents; this would make 3");
        assertThat(raw.usage("ana")).isEqualTo(UserUsage.NONE);
        assertThat(raw.changes().lastSeq()).isEqualTo(seq);
        assertThat(store.quotas().agents()).isEqualTo(2);
        assertThat(raw.quotas().isUnlimited()).isTrue();
    }

    private static void assertRefused(Runnable write, String message) {
        assertThatThrownBy(write::run).isInstanceOf(QuotaExceededException.class).hasMessageContaining(message);
    }
}

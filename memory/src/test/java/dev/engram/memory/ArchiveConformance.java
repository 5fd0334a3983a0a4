package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.lucene.LuceneMemorySearch;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Archives shared by agents on one backend: each its user's, attached to several of the user's agents, their passages
 * kept as archival entries of the archive's scope (counted against quotas, in the change log), and deleted with them.
 * {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class ArchiveConformance {
    private static final Scope ANA_HELPER = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope BEN_HELPER = Scope.of("ben", "helper");

    /** The open store under test. */
    protected abstract MemoryStore store();

    @BeforeEach
    void agents() {
        for (Scope s : List.of(ANA_HELPER, ANA_COACH, BEN_HELPER)) {
            store().agents().create(s, s.agentId(), "{}");
        }
    }

    @Test
    void anArchiveIsCreatedListedRenamedAndSeenByItsUserOnly() {
        Archive handbook = store().archives().create("ana", "handbook", "How the company works");
        Archive recipes = store().archives().create("ana", "recipes", "");
        assertThat(handbook.id()).startsWith(Archive.ID_PREFIX);
        assertThat(handbook.scope()).isEqualTo(Scope.of("ana", handbook.id()));
        assertThat(store().archives().get("ana", handbook.id())).contains(handbook);
        assertThat(store().archives().list("ana")).containsExactly(handbook, recipes);
        assertThat(store().archives().get("ben", handbook.id())).isEmpty();
        assertThat(store().archives().list("ben")).isEmpty();

        Archive renamed = store().archives().update("ana", handbook.id(), "staff handbook", "Policies");
        assertThat(renamed.name()).isEqualTo("staff handbook");
        assertThat(renamed.description()).isEqualTo("Policies");
        assertThat(renamed.createdAt()).isEqualTo(handbook.createdAt());
        assertThat(store().archives().get("ana", handbook.id())).contains(renamed);
        assertThatThrownBy(() -> store().archives().update("ben", handbook.id(), "mine", ""))
                .isInstanceOf(NotFoundException.class);
        assertThat(store().archives().get("ana", handbook.id())).contains(renamed);
    }

    @Test
    void anArchiveAttachedToTwoAgentsIsListedForBothAndDetachedFromOne() {
        Archive a = store().archives().create("ana", "handbook", "");
        assertThat(store().archives().attach(ANA_HELPER, a.id())).isTrue();
        assertThat(store().archives().attach(ANA_COACH, a.id())).isTrue();
        assertThat(store().archives().attach(ANA_COACH, a.id())).as("attached already").isFalse();
        assertThat(store().archives().agents("ana", a.id())).containsExactly("helper", "coach");
        assertThat(store().archives().attached(ANA_HELPER)).containsExactly(a);
        assertThat(store().archives().attached(ANA_COACH)).containsExactly(a);

        assertThat(store().archives().detach(ANA_HELPER, a.id())).isTrue();
        assertThat(store().archives().detach(ANA_HELPER, a.id())).isFalse();
        assertThat(store().archives().attached(ANA_HELPER)).isEmpty();
        assertThat(store().archives().agents("ana", a.id())).containsExactly("coach");
    }

    @Test
    void deletingAnAgentDetachesItsArchivesAndKeepsThem() {
        Archive a = store().archives().create("ana", "handbook", "");
        store().archives().insert("ana", a.id(), List.of(NewArchivalEntry.of("kept")));
        store().archives().attach(ANA_HELPER, a.id());
        store().archives().attach(ANA_COACH, a.id());
        assertThat(store().agents().delete(ANA_HELPER)).isTrue();
        assertThat(store().archives().agents("ana", a.id())).containsExactly("coach");
        store().agents().create(ANA_HELPER, "helper again", "{}");
        assertThat(store().archives().attached(ANA_HELPER)).as("a new agent of the same id starts without it").isEmpty();
        assertThat(store().archives().passages("ana", a.id(), 0, 10)).extracting(ArchivalEntry::content).containsExactly("kept");
    }

    @Test
    void passagesAreInsertedListedAndDeletedInTheArchiveAndLoggedForTheIndex() {
        Archive a = store().archives().create("ana", "handbook", "");
        long before = store().changes().lastSeq();
        List<ArchivalEntry> added = store().archives().insert("ana", a.id(), List.of(NewArchivalEntry.of("Holidays: 25 days"),
                NewArchivalEntry.of("Expenses within 30 days")));
        assertThat(added).hasSize(2);
        assertThat(store().archives().passages("ana", a.id(), 0, 10)).extracting(ArchivalEntry::content)
                .containsExactlyInAnyOrder("Holidays: 25 days", "Expenses within 30 days");
        assertThat(store().archival().get(a.scope(), added.get(0).id())).isPresent();
        assertThat(store().archival().list(ANA_HELPER, 0, 10)).as("an agent's own memory").isEmpty();
        List<ChangeEvent> logged = store().changes().since(before, 10);
        assertThat(logged).extracting(ChangeEvent::agentId).containsOnly(java.util.Optional.of(a.id()));

        assertThat(store().archives().deletePassage("ana", a.id(), added.get(0).id())).isTrue();
        assertThat(store().archives().deletePassage("ana", a.id(), added.get(0).id())).isFalse();
        assertThat(store().archives().passages("ana", a.id(), 0, 10)).extracting(ArchivalEntry::id)
                .containsExactly(added.get(1).id());
    }

    @Test
    void deletingAnArchiveDeletesItsPassagesAndAttachmentsAndLogsEachPassageAndAttachment() {
        Archive a = store().archives().create("ana", "handbook", "");
        List<ArchivalEntry> added = store().archives().insert("ana", a.id(), List.of(NewArchivalEntry.of("one"),
                NewArchivalEntry.of("two")));
        store().archives().attach(ANA_HELPER, a.id());
        long before = store().changes().lastSeq();
        assertThat(store().archives().delete("ben", a.id())).isFalse();
        assertThat(store().archives().get("ana", a.id())).isPresent();

        assertThat(store().archives().delete("ana", a.id())).isTrue();
        assertThat(store().archives().get("ana", a.id())).isEmpty();
        assertThat(store().archives().attached(ANA_HELPER)).isEmpty();
        assertThat(store().archival().list(a.scope(), 0, 10)).isEmpty();
        // each passage, and the attachment (an event of the agent that had it, naming the archive)
        assertThat(store().changes().since(before, 10)).extracting(ChangeEvent::id, ChangeEvent::op, ChangeEvent::agentId)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(added.get(0).id(), ChangeEvent.Op.DELETE, java.util.Optional.of(a.id())),
                        org.assertj.core.groups.Tuple.tuple(added.get(1).id(), ChangeEvent.Op.DELETE, java.util.Optional.of(a.id())),
                        org.assertj.core.groups.Tuple.tuple(a.id(), ChangeEvent.Op.DELETE,
                                java.util.Optional.of(ANA_HELPER.agentId())));
        assertThat(store().usage("ana").archivalEntries()).isZero();
        assertThat(store().archives().delete("ana", a.id())).isFalse();
    }

    @Test
    void attachingDetachingAndRenamingAnArchiveAreLoggedAsEventsOfTheAgentsThatHaveIt() {
        Archive a = store().archives().create("ana", "handbook", "");
        long before = store().changes().lastSeq();
        store().archives().attach(ANA_HELPER, a.id());
        assertThat(store().archives().attach(ANA_HELPER, a.id())).isFalse(); // already: nothing logged
        store().archives().update("ana", a.id(), "manual", "");
        store().archives().update("ana", a.id(), "manual", ""); // unchanged: nothing logged
        store().archives().detach(ANA_HELPER, a.id());
        assertThat(store().archives().detach(ANA_HELPER, a.id())).isFalse();
        assertThat(store().changes().since(before, 10))
                .extracting(ChangeEvent::entity, ChangeEvent::id, ChangeEvent::op, ChangeEvent::agentId)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.ARCHIVAL, a.id(), ChangeEvent.Op.UPSERT,
                                java.util.Optional.of(ANA_HELPER.agentId())),
                        org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.ARCHIVAL, a.id(), ChangeEvent.Op.UPSERT,
                                java.util.Optional.of(ANA_HELPER.agentId())),
                        org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.ARCHIVAL, a.id(), ChangeEvent.Op.DELETE,
                                java.util.Optional.of(ANA_HELPER.agentId())));
        // an index following the log finds no entry of the agent's for them
        assertThat(store().archival().get(ANA_HELPER, a.id())).isEmpty();
    }

    @Test
    void anotherUsersArchiveCannotBeAttachedWrittenReadOrDeleted() {
        Archive a = store().archives().create("ana", "handbook", "");
        store().archives().insert("ana", a.id(), List.of(NewArchivalEntry.of("ana's secret")));
        long before = store().changes().lastSeq();
        assertThatThrownBy(() -> store().archives().attach(BEN_HELPER, a.id())).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> store().archives().insert("ben", a.id(), List.of(NewArchivalEntry.of("ben's"))))
                .isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> store().archives().passages("ben", a.id(), 0, 10)).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> store().archives().agents("ben", a.id())).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> store().archives().detach(BEN_HELPER, a.id())).isInstanceOf(NotFoundException.class);
        String passage = store().archives().passages("ana", a.id(), 0, 1).getFirst().id();
        assertThatThrownBy(() -> store().archives().deletePassage("ben", a.id(), passage)).isInstanceOf(NotFoundException.class);
        assertThat(store().archives().attached(BEN_HELPER)).isEmpty();
        assertThat(store().archives().passages("ana", a.id(), 0, 10)).extracting(ArchivalEntry::content)
                .containsExactly("ana's secret");
        assertThat(store().changes().lastSeq()).isEqualTo(before);
    }

    @Test
    void badArchiveWritesAreRefusedAndChangeNothing() {
        Archive a = store().archives().create("ana", "handbook", "");
        assertThatThrownBy(() -> store().archives().create("ana", " ", "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> store().archives().create("ana", "x".repeat(Archive.MAX_NAME + 1), ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
        assertThatThrownBy(() -> store().archives().create("ana", "two\nlines", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store().archives().update("ana", a.id(), "", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store().archives().attach(Scope.of("ana", "nobody"), a.id()))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("no agent");
        assertThatThrownBy(() -> store().archives().attach(ANA_HELPER, "archive-none")).isInstanceOf(NotFoundException.class);
        long before = store().changes().lastSeq();
        assertThatThrownBy(() -> store().archives().insert("ana", a.id(), List.of(NewArchivalEntry.of("fine"),
                NewArchivalEntry.of("x".repeat(store().limits().maxTextChars() + 1))))).isInstanceOf(IllegalArgumentException.class);
        assertThat(store().changes().lastSeq()).isEqualTo(before);
        assertThat(store().archives().list("ana")).containsExactly(a);
        assertThat(store().archives().attached(ANA_HELPER)).isEmpty();
        assertThat(store().archives().passages("ana", a.id(), 0, 10)).isEmpty();
    }

    @Test
    void passagesCountAgainstTheUsersArchivalQuotaAndARefusedBatchStoresNothing() {
        MemoryStore limited = store().withQuotas(UserQuotas.unlimited().withArchivalEntries(3));
        Archive a = limited.archives().create("ana", "handbook", "");
        limited.archival().insert(ANA_HELPER, NewArchivalEntry.of("the agent's own"));
        limited.archives().insert("ana", a.id(), List.of(NewArchivalEntry.of("one")));
        assertThat(store().usage("ana").archivalEntries()).isEqualTo(2);
        assertThatThrownBy(() -> limited.archives().insert("ana", a.id(), List.of(NewArchivalEntry.of("two"),
                NewArchivalEntry.of("three")))).isInstanceOf(QuotaExceededException.class);
        assertThat(limited.archives().passages("ana", a.id(), 0, 10)).extracting(ArchivalEntry::content).containsExactly("one");
        assertThat(store().usage("ana").storedBytes()).isEqualTo("the agent's own".length() + "one".length());
    }

    @Test
    void anAgentsArchivalSearchCoversItsAttachedArchivesEachHitNamingItsArchive() {
        Archive a = store().archives().create("ana", "handbook", "");
        store().archives().insert("ana", a.id(), List.of(NewArchivalEntry.of("The office opens at nine on Mondays")));
        store().archival().insert(ANA_HELPER, NewArchivalEntry.of("Ana's own note: the office plants need water"));
        store().archival().insert(ANA_COACH, NewArchivalEntry.of("Coach's own note: the office gym closes early"));
        store().archives().attach(ANA_HELPER, a.id());
        store().archives().attach(ANA_COACH, a.id());
        try (MemorySearch search = LuceneMemorySearch.builder(store(), new WordHashEmbedder())
                .backgroundInterval(Duration.ZERO).build()) {
            for (SearchMode mode : SearchMode.values()) {
                List<SearchHit> helper = search.search(archival(ANA_HELPER, mode));
                assertThat(helper).extracting(SearchHit::text).as("%s", mode).containsExactlyInAnyOrder(
                        "The office opens at nine on Mondays", "Ana's own note: the office plants need water");
                assertThat(helper).filteredOn(h -> h.text().startsWith("The office")).extracting(SearchHit::archive)
                        .containsExactly(Optional.of(a.id()));
                assertThat(helper).filteredOn(h -> h.text().startsWith("Ana's")).extracting(SearchHit::archive)
                        .containsExactly(Optional.empty());
                assertThat(search.search(archival(ANA_COACH, mode))).extracting(SearchHit::text).containsExactlyInAnyOrder(
                        "The office opens at nine on Mondays", "Coach's own note: the office gym closes early");
            }
            // another user naming ana's archive finds nothing of it
            store().archival().insert(BEN_HELPER, NewArchivalEntry.of("Ben's office is at home"));
            assertThat(search.search(SearchRequest.builder(BEN_HELPER, "office").domains(SearchDomain.ARCHIVAL)
                    .archives(List.of(a.id())).build())).extracting(SearchHit::text).containsExactly("Ben's office is at home");
            // detached: the next search no longer covers it; deleted: nobody's does
            store().archives().detach(ANA_HELPER, a.id());
            assertThat(search.search(archival(ANA_HELPER, SearchMode.HYBRID))).extracting(SearchHit::text)
                    .containsExactly("Ana's own note: the office plants need water");
            store().archives().delete("ana", a.id());
            assertThat(search.search(SearchRequest.builder(ANA_COACH, "office").domains(SearchDomain.ARCHIVAL)
                    .archives(List.of(a.id())).build())).extracting(SearchHit::text)
                    .containsExactly("Coach's own note: the office gym closes early");
        }
        assertThatThrownBy(() -> SearchRequest.builder(ANA_HELPER, "office").archives(List.of("coach")).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an archive id");
    }

    private SearchRequest archival(Scope agent, SearchMode mode) {
        return SearchRequest.builder(agent, "office").domains(SearchDomain.ARCHIVAL).mode(mode).k(10)
                .archives(store().archives().attached(agent).stream().map(Archive::id).toList()).build();
    }
}

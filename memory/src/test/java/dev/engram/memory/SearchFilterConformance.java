package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.lucene.LuceneMemorySearch;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Metadata, filters, score thresholds and facts over time, through a Lucene search over this backend: the same
 * fixture and the same expected hits on every backend, so a filter means one thing wherever memory is kept, and no
 * filter reaches past the searched scope. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class SearchFilterConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope BEN = Scope.of("ben", "helper");
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    /** The open store under test. */
    protected abstract MemoryStore store();

    private ManualClock clock;
    private MemoryStore memory;
    private MemorySearch search;

    @BeforeEach
    void openSearch() {
        clock = new ManualClock(START);
        memory = MemoryStore.over(store().backend(), clock); // same backend, a clock the test moves
        search = LuceneMemorySearch.builder(memory, new WordHashEmbedder()).backgroundInterval(Duration.ZERO).build();
    }

    @AfterEach
    void closeSearch() {
        search.close();
    }

    private ArchivalEntry fact(Scope scope, String content, String metadataJson) {
        clock.advance(Duration.ofDays(1));
        return memory.archival().insert(scope, NewArchivalEntry.of(content).withMetadata(Metadata.parse(metadataJson)));
    }

    private List<String> texts(SearchRequest.Builder request) {
        return search.search(request.build()).stream().map(SearchHit::text).toList();
    }

    private SearchRequest.Builder bm25(Scope scope, String query) {
        return SearchRequest.builder(scope, query).mode(SearchMode.BM25).k(20);
    }

    /** Five launch facts in ana's helper, with a project and a priority; written a day apart from 2 January. */
    private void launches() {
        fact(ANA, "launch one", "{\"project\": \"apollo\", \"priority\": 1, \"team\": [\"ops\", \"fuel\"]}");
        fact(ANA, "launch two", "{\"project\": \"apollo\", \"priority\": 2, \"owner\": \"Ana Lima\"}");
        fact(ANA, "launch three", "{\"project\": \"gemini\", \"priority\": 3}");
        fact(ANA, "launch four", "{\"project\": \"apollo\", \"priority\": 4.5, \"done\": true}");
        fact(ANA, "launch five", "{}");
    }

    @Test
    void metadataIsStoredWithNotesAndArchivalEntriesAndReadBack() {
        Metadata meta = Metadata.parse("{\"project\": \"apollo\", \"priority\": 2, \"tags\": [\"a\", \"b\"], \"x\": null}");
        Note note = memory.notes().save("ana", "Likes mornings", meta);
        assertThat(memory.notes().get("ana", note.id())).map(Note::metadata).contains(meta);
        ArchivalEntry entry = memory.archival().insert(ANA, NewArchivalEntry.labelled("plan", "The plan", List.of("work"))
                .withMetadata(meta));
        assertThat(memory.archival().get(ANA, entry.id())).hasValueSatisfying(e -> {
            assertThat(e.metadata()).isEqualTo(meta);
            assertThat(e.tags()).containsExactly("work");
        });
        assertThat(memory.notes().save("ana", "plain").metadata()).isEqualTo(Metadata.empty());
    }

    @Test
    void filtersSelectTheSameHitsOnEveryBackend() {
        launches();
        Map<String, List<String>> expected = Map.ofEntries(
                Map.entry("{\"project\": \"apollo\"}", List.of("launch one", "launch two", "launch four")),
                Map.entry("{\"AND\": [{\"project\": \"apollo\"}, {\"priority\": {\"gte\": 2}}]}", List.of("launch two", "launch four")),
                Map.entry("{\"OR\": [{\"project\": \"gemini\"}, {\"priority\": {\"lt\": 2}}]}", List.of("launch one", "launch three")),
                Map.entry("{\"NOT\": {\"project\": \"apollo\"}}", List.of("launch three", "launch five")),
                Map.entry("{\"priority\": {\"ne\": 2}}", List.of("launch one", "launch three", "launch four")),
                Map.entry("{\"priority\": {\"in\": [1, 3.0]}}", List.of("launch one", "launch three")),
                Map.entry("{\"project\": {\"nin\": [\"gemini\"]}}", List.of("launch one", "launch two", "launch four")),
                Map.entry("{\"priority\": {\"gt\": 2, \"lte\": 4.5}}", List.of("launch three", "launch four")),
                Map.entry("{\"team\": {\"contains\": \"fuel\"}}", List.of("launch one")),
                Map.entry("{\"owner\": {\"icontains\": \"ana l\"}}", List.of("launch two")),
                Map.entry("{\"owner\": {\"contains\": \"ana l\"}}", List.of()),
                Map.entry("{\"done\": true}", List.of("launch four")),
                Map.entry("{\"created_at\": {\"gte\": \"2026-01-03T00:00:00Z\", \"lt\": \"2026-01-05T00:00:00Z\"}}",
                        List.of("launch two", "launch three")));
        for (Map.Entry<String, List<String>> e : expected.entrySet()) {
            for (SearchMode mode : SearchMode.values()) {
                List<String> hits = texts(SearchRequest.builder(ANA, "launch").mode(mode).k(20).filter(e.getKey()));
                assertThat(hits).as("%s in %s", e.getKey(), mode).containsExactlyInAnyOrderElementsOf(e.getValue());
            }
        }
        assertThat(texts(bm25(ANA, "launch"))).hasSize(5);
    }

    @Test
    void filteredListingsSelectTheSameItemsAsFilteredSearches() {
        launches();
        fact(BEN, "launch ben", "{\"project\": \"apollo\"}");
        MemoryFilter apollo = MemoryFilter.parse("{\"AND\": [{\"project\": \"apollo\"}, {\"priority\": {\"gte\": 2}}]}");
        assertThat(memory.archival().list(ANA, apollo, 0, 10)).extracting(ArchivalEntry::content)
                .containsExactly("launch four", "launch two");
        assertThat(memory.archival().list(ANA, apollo, 1, 10)).extracting(ArchivalEntry::content).containsExactly("launch two");
        assertThat(memory.archival().list(ANA, MemoryFilter.parse("{\"user_id\": \"ben\"}"), 0, 10)).isEmpty();
        for (int i = 0; i < 600; i++) {
            memory.notes().save("ana", "note " + i, Metadata.of(Map.of("n", i)));
        }
        assertThat(memory.notes().list("ana", MemoryFilter.parse("{\"n\": {\"in\": [3, 550]}}"), 0, 10))
                .extracting(Note::content).containsExactly("note 550", "note 3");
        assertThat(memory.notes().list("ana", MemoryFilter.parse("{\"agent_id\": \"helper\"}"), 0, 10)).isEmpty();
    }

    @Test
    void aFilteredSearchStillReturnsKHitsWhenKMatchingItemsExist() {
        for (int i = 0; i < 150; i++) {
            fact(ANA, "rocket rocket rocket report " + i, "{\"kind\": \"noise\"}");
        }
        for (int i = 0; i < 8; i++) {
            fact(ANA, "rocket note with many other words to lower its score " + i, "{\"kind\": \"signal\"}");
        }
        for (SearchMode mode : SearchMode.values()) {
            List<SearchHit> hits = search.search(SearchRequest.builder(ANA, "rocket").mode(mode).k(5)
                    .filter("{\"kind\": \"signal\"}").build());
            assertThat(hits).as("mode %s", mode).hasSize(5).allSatisfy(h -> assertThat(h.text()).startsWith("rocket note"));
        }
    }

    @Test
    void noFilterReachesAnotherScope() {
        fact(ANA, "budget ana", "{\"project\": \"apollo\"}");
        fact(ANA_COACH, "budget coach", "{\"project\": \"apollo\"}");
        fact(BEN, "budget ben", "{\"project\": \"apollo\"}");
        memory.notes().save("ben", "budget ben note", Metadata.parse("{\"project\": \"apollo\"}"));
        memory.notes().save("ana", "budget ana note", Metadata.parse("{\"project\": \"apollo\"}"));
        List<String> filters = List.of("{\"user_id\": \"ben\"}", "{\"OR\": [{\"user_id\": \"ben\"}, {\"project\": \"apollo\"}]}",
                "{\"NOT\": {\"user_id\": \"ana\"}}", "{\"agent_id\": \"coach\"}", "{\"user_id\": {\"in\": [\"ana\", \"ben\"]}}",
                "{\"NOT\": {\"project\": \"none\"}}");
        for (String filter : filters) {
            assertThat(texts(SearchRequest.builder(ANA, "budget").k(50).filter(filter)))
                    .as(filter).isSubsetOf("budget ana", "budget ana note");
        }
        assertThat(texts(SearchRequest.builder(ANA, "budget").k(50).filter("{\"user_id\": \"ana\"}")))
                .containsExactlyInAnyOrder("budget ana", "budget ana note");
        assertThat(texts(SearchRequest.builder(ANA, "budget").k(50).filter("{\"agent_id\": \"helper\"}")))
                .containsExactly("budget ana"); // a note has no agent
    }

    @Test
    void aMinimumScoreDropsWeakerHits() {
        launches();
        fact(ANA, "launch launch launch pad", "{}");
        List<SearchHit> all = search.search(bm25(ANA, "launch").build());
        double cut = (all.get(0).score() + all.get(1).score()) / 2;
        List<SearchHit> strong = search.search(bm25(ANA, "launch").minScore(cut).build());
        assertThat(strong).extracting(SearchHit::text).containsExactly("launch launch launch pad");
        assertThat(search.search(bm25(ANA, "launch").minScore(all.get(0).score() + 1).build())).isEmpty();
    }

    @Test
    void aSupersededNoteKeepsItsTextAndSearchFindsTheCurrentFactUnlessAskedForAnEarlierTime() {
        clock.advance(Duration.ofDays(1));
        Note lisbon = memory.notes().save("ana", "Ana lives in Lisbon", Metadata.parse("{\"topic\": \"home\"}"));
        Instant whileLisbon = clock.advance(Duration.ofDays(10));
        Instant moved = clock.advance(Duration.ofDays(10));
        Note porto = memory.notes().supersede("ana", lisbon.id(), "Ana lives in Porto", Metadata.parse("{\"topic\": \"home\"}"));

        assertThat(porto.supersedes()).contains(lisbon.id());
        assertThat(porto.validFrom()).isEqualTo(moved);
        Note old = memory.notes().get("ana", lisbon.id()).orElseThrow();
        assertThat(old.content()).isEqualTo("Ana lives in Lisbon");
        assertThat(old.validTo()).contains(moved);
        assertThat(memory.notes().list("ana", 0, 10)).containsExactly(porto);
        assertThat(memory.notes().history("ana", lisbon.id())).containsExactly(old, porto);
        assertThat(memory.notes().history("ana", porto.id())).containsExactly(old, porto);

        assertThat(texts(SearchRequest.builder(ANA, "where does Ana live").k(10))).containsExactly("Ana lives in Porto");
        assertThat(texts(SearchRequest.builder(ANA, "where does Ana live").k(10).asOf(whileLisbon)))
                .containsExactly("Ana lives in Lisbon");
        assertThat(texts(SearchRequest.builder(ANA, "where does Ana live").k(10).asOf(moved)))
                .containsExactly("Ana lives in Porto");
        assertThat(texts(SearchRequest.builder(ANA, "where does Ana live").k(10).asOf(START))).isEmpty();
    }

    @Test
    void onlyTheCurrentVersionOfANoteChangesAndARefusedWriteChangesNothing() {
        Note first = memory.notes().save("ana", "v1");
        clock.advance(Duration.ofMinutes(1));
        Note second = memory.notes().supersede("ana", first.id(), "v2", Metadata.empty());
        long before = memory.changes().lastSeq();
        assertThatThrownBy(() -> memory.notes().update("ana", first.id(), "rewritten"))
                .isInstanceOf(SupersededException.class).hasMessageContaining(second.id());
        assertThatThrownBy(() -> memory.notes().supersede("ana", first.id(), "v3", Metadata.empty()))
                .isInstanceOf(SupersededException.class);
        assertThatThrownBy(() -> memory.notes().supersede("ben", second.id(), "mine", Metadata.empty()))
                .isInstanceOf(NotFoundException.class);
        assertThat(memory.changes().lastSeq()).isEqualTo(before);
        assertThat(memory.notes().history("ana", second.id())).extracting(Note::content).containsExactly("v1", "v2");
        assertThat(memory.notes().count("ana")).isEqualTo(1);
    }

    @Test
    void aSupersededArchivalFactPassesItsLabelOnAndKeepsItsHistory() {
        ArchivalEntry lisbon = memory.archival().insert(ANA, NewArchivalEntry.labelled("home", "Lives in Lisbon", List.of()));
        Instant whileLisbon = clock.advance(Duration.ofDays(1));
        clock.advance(Duration.ofDays(1));
        ArchivalEntry porto = memory.archival().supersede(ANA, lisbon.id(), NewArchivalEntry.of("Lives in Porto")
                .withMetadata(Metadata.parse("{\"city\": \"Porto\"}")));
        assertThat(porto.label()).contains("home");
        assertThat(porto.supersedes()).contains(lisbon.id());
        assertThat(memory.archival().getByLabel(ANA, "home")).contains(porto);
        assertThat(memory.archival().history(ANA, porto.id())).extracting(ArchivalEntry::content)
                .containsExactly("Lives in Lisbon", "Lives in Porto");
        assertThat(memory.archival().list(ANA, 0, 10)).containsExactly(porto);
        assertThat(memory.archival().count(ANA)).isEqualTo(1);
        assertThat(texts(bm25(ANA, "lives"))).containsExactly("Lives in Porto");
        assertThat(texts(bm25(ANA, "lives").asOf(whileLisbon))).containsExactly("Lives in Lisbon");
        assertThatThrownBy(() -> memory.archival().supersede(ANA, lisbon.id(), NewArchivalEntry.of("x")))
                .isInstanceOf(SupersededException.class);
        assertThatThrownBy(() -> memory.archival().supersede(BEN, porto.id(), NewArchivalEntry.of("x")))
                .isInstanceOf(NotFoundException.class);
    }

    @Test
    void aMessageNamingWhatTheQueryNamesRanksAboveOneWithTheSameWordsUnnamed() {
        // The same words, so the same BM25 score over the text; only the second names Ana and Lisbon.
        memory.messages().appendAll(ANA, List.of(NewMessage.user("s", "ana: lisbon was sunny"),
                NewMessage.user("s", "Ana: Lisbon was sunny")));
        memory.archival().insert(ANA, NewArchivalEntry.of("ana said lisbon was sunny"));
        memory.archival().insert(ANA, NewArchivalEntry.of("Ana said Lisbon was sunny"));
        assertThat(texts(bm25(ANA, "Was Lisbon sunny?").domains(SearchDomain.CONVERSATIONS)))
                .containsExactly("Ana: Lisbon was sunny", "ana: lisbon was sunny");
        // Archival entries keep their scores: the tie keeps the order of writing.
        assertThat(texts(bm25(ANA, "Was Lisbon sunny?").domains(SearchDomain.ARCHIVAL)))
                .containsExactly("ana said lisbon was sunny", "Ana said Lisbon was sunny");
        // Without the signal the messages' tie keeps the order of writing too: the signal is what moved the named one up.
        try (MemorySearch unnamed = LuceneMemorySearch.builder(memory, new WordHashEmbedder()).backgroundInterval(Duration.ZERO)
                .nameWeight(0).build()) {
            assertThat(unnamed.search(bm25(ANA, "Was Lisbon sunny?").domains(SearchDomain.CONVERSATIONS).build()))
                    .extracting(SearchHit::text).containsExactly("ana: lisbon was sunny", "Ana: Lisbon was sunny");
        }
    }
}

package dev.engram.memory.lucene;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.WordHashEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The title signal (a document's first line searched as a field of its own) and the embedded context (a message
 * embedded with the earlier messages of its session), each on a tiny corpus where it changes the order.
 */
class DocumentSignalsTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;

    private static List<String> texts(MemoryStore store, UnaryOperator<LuceneMemorySearch.Builder> options, SearchRequest request) {
        try (MemorySearch search = options.apply(LuceneMemorySearch.builder(store, new WordHashEmbedder())
                .backgroundInterval(Duration.ZERO)).build()) {
            return search.search(request).stream().map(SearchHit::text).toList();
        }
    }

    @Test
    void aDocumentTitledWithTheQueryRanksAboveOneThatRepeatsItInItsBodyOnlyWithTheTitleWeight() {
        try (MemoryStore store = MemoryStore.inMemory()) {
            String body = "Orchestra seating\nThe cellos sit on the right; the cellos face the conductor, as cellos do.";
            String titled = "Cellos\nThe string family of the orchestra, bowed and large.";
            store.archival().insert(ANA, NewArchivalEntry.of(body));
            store.archival().insert(ANA, NewArchivalEntry.of(titled));
            SearchRequest request = SearchRequest.builder(ANA, "cellos").mode(SearchMode.BM25).domains(SearchDomain.ARCHIVAL).build();
            assertThat(texts(store, b -> b, request)).containsExactly(body, titled);
            assertThat(texts(store, b -> b.titleWeight(2), request)).containsExactly(titled, body);
        }
    }

    @Test
    void onlyAShortFirstLineWithMoreTextAfterItIsATitleAndConversationsHaveNone() {
        assertThat(LuceneDocuments.title(SearchDomain.ARCHIVAL, "Cellos\nbowed strings")).isEqualTo("Cellos");
        assertThat(LuceneDocuments.title(SearchDomain.NOTES, "# Plans for May\n- Lisbon")).isEqualTo("# Plans for May");
        assertThat(LuceneDocuments.title(SearchDomain.FILES, "one line only")).isEmpty();
        assertThat(LuceneDocuments.title(SearchDomain.ARCHIVAL, "a first line\n  \n")).isEmpty();
        assertThat(LuceneDocuments.title(SearchDomain.ARCHIVAL, "\nstarts with a blank line")).isEmpty();
        assertThat(LuceneDocuments.title(SearchDomain.ARCHIVAL, "x".repeat(LuceneDocuments.MAX_TITLE_CHARS + 1) + "\nbody"))
                .isEmpty();
        assertThat(LuceneDocuments.title(SearchDomain.CONVERSATIONS, "Ana: hi\nthere")).isEmpty();
        assertThat(LuceneDocuments.title(SearchDomain.BLOCKS, "persona\nI am Ana")).isEmpty();
    }

    @Test
    void aReplyEmbeddedWithTheMessageItAnswersIsFoundByTheQuestionsWords() {
        try (MemoryStore store = MemoryStore.inMemory()) {
            store.messages().appendAll(ANA, List.of(NewMessage.user("t", "puppy food, grey weather, rain, cold wind, dark clouds, fog")));
            store.messages().appendAll(ANA, List.of(NewMessage.user("s", "Did you adopt the puppy?"),
                    NewMessage.user("s", "Yes, last Tuesday.")));
            SearchRequest request = SearchRequest.builder(ANA, "adopt puppy").mode(SearchMode.VECTOR)
                    .domains(SearchDomain.CONVERSATIONS).k(3).build();
            assertThat(texts(store, b -> b, request)).containsExactly("Did you adopt the puppy?",
                    "puppy food, grey weather, rain, cold wind, dark clouds, fog", "Yes, last Tuesday.");
            // Hits still show the message alone; only its vector carries the question it answers.
            assertThat(texts(store, b -> b.embeddedContext(1), request)).containsExactly("Did you adopt the puppy?",
                    "Yes, last Tuesday.", "puppy food, grey weather, rain, cold wind, dark clouds, fog");
        }
    }

    @Test
    void anIndexWrittenWithAnotherEmbeddedContextIsRebuiltAtOpen() {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            store.messages().appendAll(ANA, List.of(NewMessage.user("s", "Did you adopt the puppy?"),
                    NewMessage.user("s", "Yes, last Tuesday.")));
            SearchRequest request = SearchRequest.builder(ANA, "adopt puppy").mode(SearchMode.VECTOR)
                    .domains(SearchDomain.CONVERSATIONS).k(2).build();
            UnaryOperator<LuceneMemorySearch.Builder> onDisk = b -> b.directory(dir.resolve("index"));
            List<SearchHit> before = hits(store, onDisk, request);
            List<SearchHit> after = hits(store, b -> onDisk.apply(b).embeddedContext(1), request);
            // The reply's vector now holds the question's words: its score rose, so it was embedded again.
            assertThat(after.get(1).text()).isEqualTo("Yes, last Tuesday.");
            assertThat(after.get(1).score()).isGreaterThan(before.get(1).score() + 0.2);
            assertThat(hits(store, onDisk, request).get(1).score()).isEqualTo(before.get(1).score());
        }
    }

    /** An index of session 15's layout (no titles) is rebuilt once when opened: the title signal then finds its documents. */
    @Test
    void anIndexOfTheLayoutBeforeTitlesIsRebuiltAtOpen() throws Exception {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            String body = "Orchestra seating\nThe cellos sit on the right; the cellos face the conductor, as cellos do.";
            String titled = "Cellos\nThe string family of the orchestra, bowed and large.";
            store.archival().insert(ANA, NewArchivalEntry.of(body));
            store.archival().insert(ANA, NewArchivalEntry.of(titled));
            SearchRequest request = SearchRequest.builder(ANA, "cellos").mode(SearchMode.BM25).domains(SearchDomain.ARCHIVAL).build();
            UnaryOperator<LuceneMemorySearch.Builder> onDisk = b -> b.directory(dir.resolve("index")).titleWeight(2);
            assertThat(hits(store, onDisk, request)).extracting(SearchHit::text).containsExactly(titled, body);
            // Mark the index as written with the layout of before, and empty it: only a rebuild finds anything again.
            try (Directory d = FSDirectory.open(dir.resolve("index")); IndexWriter w = new IndexWriter(d, new IndexWriterConfig())) {
                Map<String, String> data = new HashMap<>();
                w.getLiveCommitData().forEach(e -> data.put(e.getKey(), e.getValue()));
                data.put(IndexCommit.FORMAT_DATA, IndexCommit.format("messages 2+1, dated, metadata and validity, message names"));
                w.deleteAll();
                w.setLiveCommitData(data.entrySet());
                w.commit();
            }
            assertThat(hits(store, onDisk, request)).extracting(SearchHit::text).containsExactly(titled, body);
        }
    }

    private static List<SearchHit> hits(MemoryStore store, UnaryOperator<LuceneMemorySearch.Builder> options, SearchRequest request) {
        try (MemorySearch search = options.apply(LuceneMemorySearch.builder(store, new WordHashEmbedder())
                .backgroundInterval(Duration.ZERO)).build()) {
            return search.search(request);
        }
    }

    @Test
    void outOfRangeSettingsAreRefusedWithTheirBounds() {
        try (MemoryStore store = MemoryStore.inMemory()) {
            LuceneMemorySearch.Builder builder = LuceneMemorySearch.builder(store, new WordHashEmbedder());
            assertThatThrownBy(() -> builder.titleWeight(-1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("title weight must be between 0 and 10, got -1.0");
            assertThatThrownBy(() -> builder.titleWeight(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> builder.embeddedContext(11)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("embedded context must be between 0 and 10 messages, got 11");
            assertThatThrownBy(() -> builder.embeddedContext(-1)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}

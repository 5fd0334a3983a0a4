package dev.engram.memory.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchHealth;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults an operator meets: an embedding model that cannot be opened, an index directory that is corrupt
 * or unusable. The store opens and takes writes, search answers (with BM25 alone while there is no
 * model), and health says what is degraded and why; the index rebuilds itself where it can.
 */
class SearchFaultsTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static Embedder model;

    @TempDir
    Path dir;

    @BeforeAll
    static void loadModel() {
        model = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(2).build();
    }

    @AfterAll
    static void closeModel() {
        model.close();
    }

    /** The model as the engine has it when its file is corrupt: a stand-in with its id whose every call fails. */
    private static Embedder brokenModel() {
        return Embedder.unavailable(model.id(), model.dimensions(), "cannot load the ONNX model of all-minilm-l6-v2-q: "
                + "Load model from memory failed: Protobuf parsing failed.");
    }

    private static MemorySearch open(MemoryStore store, Embedder embedder, Path index) {
        return LuceneMemorySearch.builder(store, embedder).directory(index).backgroundInterval(Duration.ZERO).build();
    }

    private static List<String> find(MemorySearch search, String query, SearchMode mode) {
        return search.search(SearchRequest.builder(ANA, query).mode(mode).build()).stream().map(SearchHit::text).toList();
    }

    @Test
    void anEmbeddingModelThatCannotOpenLeavesSearchOnBm25AndHealthSaysSo() {
        Embedder broken = brokenModel();
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
                MemorySearch search = open(store, broken, dir.resolve("index"))) {
            store.notes().save("ana", "the spare key is under the blue flowerpot");
            store.notes().save("ana", "the train to Lisbon leaves at nine");

            for (SearchMode mode : SearchMode.values()) {
                assertThat(find(search, "where is the spare key", mode)).as(mode.name())
                        .first().asString().contains("blue flowerpot");
            }
            SearchHealth health = search.health();
            assertThat(health.degraded()).isTrue();
            assertThat(health.reasons()).anySatisfy(r -> assertThat(r).contains("embedding model").contains("BM25 alone")
                    .contains("Protobuf parsing failed"));
            assertThat(health.reasons()).anySatisfy(r -> assertThat(r).contains("2 documents were indexed while the "
                    + "embedding model was unavailable"));
            assertThat(store.notes().list("ana", 0, 10)).hasSize(2);
        }
    }

    @Test
    void documentsIndexedWithoutAModelGetTheirVectorsWhenItWorksAgain() {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            try (MemorySearch search = open(store, brokenModel(), dir.resolve("index"))) {
                store.notes().save("ana", "the violin needs new strings");
                search.awaitIndexed();
            }
            try (MemorySearch search = open(store, model, dir.resolve("index"))) {
                assertThat(search.health().degraded()).as("rebuilt with the model: " + search.health()).isFalse();
                assertThat(search.search(SearchRequest.builder(ANA, "musical instrument repair").mode(SearchMode.VECTOR).build()))
                        .first().satisfies(h -> assertThat(h.vector()).isPresent());
            }
        }
    }

    @Test
    void aCorruptIndexIsSetAsideAndRebuiltFromTheStore() throws IOException {
        Path index = dir.resolve("index");
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            try (MemorySearch search = open(store, model, index)) {
                store.notes().save("ana", "the spare key is under the blue flowerpot");
                search.awaitIndexed();
            }
            try (Stream<Path> files = Files.list(index)) {
                for (Path segments : files.filter(p -> p.getFileName().toString().startsWith("segments")).toList()) {
                    Files.write(segments, "this is not a Lucene segments file".getBytes());
                }
            }
            try (MemorySearch search = open(store, model, index)) {
                store.notes().save("ana", "the train to Lisbon leaves at nine");
                assertThat(find(search, "spare key", SearchMode.HYBRID)).first().asString().contains("blue flowerpot");
                assertThat(find(search, "Lisbon train", SearchMode.HYBRID)).first().asString().contains("Lisbon");
                assertThat(search.health().degraded()).as("rebuilt in place: " + search.health()).isFalse();
            }
            try (Stream<Path> siblings = Files.list(dir)) {
                assertThat(siblings.map(p -> p.getFileName().toString())).anySatisfy(n -> assertThat(n).startsWith("index.broken-"));
            }
        }
    }

    @Test
    void anIndexDirectoryThatCannotBeUsedFallsBackToMemoryAndHealthSaysSo() throws IOException {
        Path notADirectory = Files.writeString(dir.resolve("a-file"), "in the way");
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
                MemorySearch search = open(store, model, notADirectory.resolve("index"))) {
            store.notes().save("ana", "the spare key is under the blue flowerpot");
            assertThat(find(search, "where is the spare key", SearchMode.HYBRID)).first().asString().contains("blue flowerpot");
            SearchHealth health = search.health();
            assertThat(health.degraded()).isTrue();
            assertThat(health.reasons()).singleElement().asString().contains(notADirectory.resolve("index").toString())
                    .contains("in-memory index");
            assertThat(Files.readString(notADirectory)).isEqualTo("in the way");
        }
    }
}

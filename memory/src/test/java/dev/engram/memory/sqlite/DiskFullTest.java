package dev.engram.memory.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.SmallDisk;
import dev.engram.memory.SqliteOptions;
import dev.engram.memory.StorageFullException;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk under the SQLite file and the search index fills up: writes are refused with a
 * {@link StorageFullException} that says so, nothing acknowledged is lost or corrupted, and writes succeed
 * again, on the same open store, once space returns. Runs as root on a 4 MB tmpfs (skipped otherwise),
 * filled with a file but for 150 KB, which the store then fills; deleting that file frees the space.
 */
class DiskFullTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path tmp;

    @Test
    void aFullDiskRefusesWritesClearlyLosesNothingAndWritesResumeWhenSpaceReturns() throws Exception {
        try (SmallDisk disk = SmallDisk.mount(tmp.resolve("disk"), 4);
                OnnxEmbedder embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(1).build()) {
            Path file = disk.dir().resolve("memory.db");
            List<ArchivalEntry> acknowledged = new ArrayList<>();
            SqliteBackend backend = SqliteBackend.open(SqliteOptions.builder(file).build());
            try (MemoryStore store = MemoryStore.over(backend);
                    MemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(disk.dir().resolve("index")).build()) {
                acknowledged.add(store.archival().insert(ANA, NewArchivalEntry.of("opened")));
                Path filler = disk.fill("filler", 150_000);
                StorageFullException refused = null;
                for (int i = 0; i < 20_000 && refused == null; i++) {
                    try {
                        acknowledged.add(store.archival().insert(ANA, NewArchivalEntry.of(entry(i))));
                    } catch (StorageFullException e) {
                        refused = e;
                    }
                }
                if (refused == null) {
                    fail("20,000 writes fitted in 150 KB");
                }
                assertThat(acknowledged).as("some writes fitted").hasSizeGreaterThan(3);
                assertThat(refused.getMessage()).contains("is full (SQLITE_FULL)", file.toString(), "nothing of it was written",
                        "free space").doesNotContain("Exception");

                // Still full: refused again, and what was acknowledged is all there, intact.
                assertThatThrownBy(() -> store.archival().insert(ANA, NewArchivalEntry.of("one more while full")))
                        .isInstanceOf(StorageFullException.class);
                assertThat(store.archival().count(ANA)).isEqualTo(acknowledged.size());
                for (ArchivalEntry e : acknowledged) {
                    assertThat(store.archival().get(ANA, e.id())).as("entry %s", e.id()).contains(e);
                }
                assertThat(backend.integrityCheck()).isEqualTo("ok");

                // Space returns: the same open store writes again, and the index catches up.
                java.nio.file.Files.delete(filler);
                acknowledged.add(store.archival().insert(ANA, NewArchivalEntry.of("after the disk was freed: quetzal")));
                assertThat(store.archival().count(ANA)).isEqualTo(acknowledged.size());
                assertThat(search.search(SearchRequest.builder(ANA, "quetzal").mode(SearchMode.BM25).build()))
                        .extracting(SearchHit::text).containsExactly("after the disk was freed: quetzal");
            }

            // More room for what follows, by growing the file system itself.
            disk.resize(8);
            // Reopened from the file: everything acknowledged, and a sound database.
            SqliteBackend reopened = SqliteBackend.open(SqliteOptions.builder(file).build());
            try (MemoryStore store = MemoryStore.over(reopened);
                    MemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(disk.dir().resolve("index")).build()) {
                assertThat(reopened.integrityCheck()).isEqualTo("ok");
                assertThat(store.archival().list(ANA, 0, 100_000)).containsExactlyInAnyOrderElementsOf(acknowledged);
                String lastBeforeFull = acknowledged.get(acknowledged.size() - 2).content().split(" ")[0];
                assertThat(search.search(SearchRequest.builder(ANA, lastBeforeFull).mode(SearchMode.BM25).build()))
                        .as("the last entry written before the disk filled is found").hasSize(1);
                store.archival().insert(ANA, NewArchivalEntry.of("after reopening"));
            }
        }
    }

    /** An entry of about 2 KB with a word of its own ({@code entryN}). */
    private static String entry(int i) {
        return "entry" + i + " " + ("Ana keeps notes about her garden, her sister and her travels. ").repeat(30);
    }
}

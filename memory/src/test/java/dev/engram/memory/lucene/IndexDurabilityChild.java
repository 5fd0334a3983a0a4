package dev.engram.memory.lucene;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.WordHashEmbedder;
import dev.engram.memory.WriterChild;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The writer process of {@link IndexDurabilityTest}: inserts archival entries while the background
 * indexer follows the log, acknowledging each insert after its call returns, until it is killed or its parent dies.
 */
public final class IndexDurabilityChild {
    private IndexDurabilityChild() {
    }

    public static void main(String[] args) {
        WriterChild.exitWhenParentDies();
        Path dir = Path.of(args[0]);
        String run = args[1];
        Scope scope = Scope.of("ana", "helper");
        PrintStream out = new PrintStream(System.out, false);
        MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
        Embedder embedder = new WordHashEmbedder();
        MemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                .backgroundInterval(Duration.ofMillis(5)).batchEvents(8).build();
        out.println("READY " + search.indexedSeq());
        out.flush();
        for (long i = 0; ; i++) {
            String token = "tok" + run + "x" + i;
            ArchivalEntry e = store.archival().insert(scope, NewArchivalEntry.of("entry " + token + " about sailing"));
            out.println(e.id() + " " + token);
            out.flush();
            if (i % 25 == 0) {
                // Announce the delete first: if the kill comes between its commit and its acknowledgement,
                // the parent knows the entry may be gone.
                out.println("deleting " + e.id());
                out.flush();
                store.archival().delete(scope, e.id());
                out.println("deleted " + e.id());
                out.flush();
            }
        }
    }
}

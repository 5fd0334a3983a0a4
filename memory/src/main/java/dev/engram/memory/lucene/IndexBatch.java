package dev.engram.memory.lucene;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.MemoryStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.Term;

/**
 * A batch of change-log events with the current state of their items, embedded, ready to write: read
 * and embedded on the indexer's thread while the previous batch is written on the writer's.
 */
record IndexBatch(List<ChangeEvent> events, List<String> deletes, List<LuceneDocuments.Item> upserts, List<float[]> vectors) {
    long lastSeq() {
        return events.get(events.size() - 1).seq();
    }

    /**
     * Reads the events after {@code afterSeq} (at most {@code maxEvents}) and the current state of their items, and embeds
     * the items. A new message also brings back the earlier messages whose text it joins ({@link LuceneDocuments#neighboursBefore}).
     */
    static IndexBatch prepare(MemoryStore store, LuceneDocuments documents, Vectors vectors, long afterSeq, int maxEvents) {
        List<ChangeEvent> events = store.changes().since(afterSeq, maxEvents);
        // Only the last event per item matters: the current state is fetched from the store.
        Map<String, ChangeEvent> latest = new LinkedHashMap<>();
        for (ChangeEvent e : events) {
            for (ChangeEvent earlier : documents.neighboursBefore(e)) {
                latest.putIfAbsent(LuceneDocuments.key(earlier), earlier);
            }
            latest.remove(LuceneDocuments.key(e));
            latest.put(LuceneDocuments.key(e), e);
        }
        List<String> deletes = new ArrayList<>();
        List<LuceneDocuments.Item> upserts = new ArrayList<>();
        for (Map.Entry<String, ChangeEvent> entry : latest.entrySet()) {
            Optional<LuceneDocuments.Item> item = entry.getValue().op() == ChangeEvent.Op.DELETE ? Optional.empty()
                    : documents.load(entry.getValue());
            if (item.isPresent()) {
                upserts.add(item.get());
            } else {
                deletes.add(entry.getKey());
            }
        }
        return new IndexBatch(events, deletes, upserts, vectors.of(upserts.stream().map(LuceneDocuments::embedded).toList()));
    }

    /**
     * The embedder behind a cache of its latest vectors by text, so that a document written again with the same embedded
     * text (a message whose later neighbour arrived) is not embedded again. Texts longer than {@link #CACHED_CHARS} are
     * not kept, so the cache holds at most capacity x 8 KB of text.
     */
    static final class Vectors {
        static final int CACHED_CHARS = 4_096;

        private final EmbedderWatch embedder;
        private final Map<String, float[]> recent;

        Vectors(EmbedderWatch embedder, int capacity) {
            this.embedder = embedder;
            this.recent = new LinkedHashMap<>(capacity * 4 / 3 + 1, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
                    return size() > capacity;
                }
            };
        }

        /**
         * The texts' vectors, in order; only those not embedded lately are embedded (in one call). A null for each text
         * the model could not embed (while it is unavailable).
         */
        synchronized List<float[]> of(List<String> texts) {
            Map<String, float[]> found = new java.util.HashMap<>();
            java.util.Set<String> missing = new java.util.LinkedHashSet<>();
            for (String t : texts) {
                float[] v = recent.get(t);
                if (v != null) {
                    found.put(t, v);
                } else {
                    missing.add(t);
                }
            }
            if (!missing.isEmpty()) {
                List<String> embed = List.copyOf(missing);
                List<float[]> fresh = embedder.embed(embed);
                for (int i = 0; i < embed.size(); i++) {
                    found.put(embed.get(i), fresh.get(i));
                    if (fresh.get(i) != null && embed.get(i).length() <= CACHED_CHARS) {
                        recent.put(embed.get(i), fresh.get(i));
                    }
                }
            }
            return texts.stream().map(found::get).toList();
        }
    }

    /** The fewest documents one thread writes of a batch: a smaller batch is written by the calling thread alone. */
    static final int MIN_DOCS_PER_THREAD = 256;

    /**
     * Into how many slices a batch of {@code documents} is cut for {@code threads} writing threads: one per thread, each of
     * at least {@link #MIN_DOCS_PER_THREAD} documents, and at least one.
     */
    static int slices(int documents, int threads) {
        return Math.clamp(documents / MIN_DOCS_PER_THREAD, 1, Math.max(1, threads));
    }

    /**
     * Writes the batch; with {@code helpers}, a large batch's documents are written by up to {@code threads} threads at
     * once. Lucene gives each thread its own in-memory segment, so that the HNSW graph, most of the cost of a document,
     * is built on several cores. Each item is in a batch once, so the order of its upserts does not matter; the next
     * batch is written after this method returns, so an item's later change always replaces the earlier one.
     */
    void writeTo(IndexWriter writer, ExecutorService helpers, int threads) throws IOException {
        for (String key : deletes) {
            writer.deleteDocuments(new Term(LuceneDocuments.KEY, key));
        }
        int slices = helpers == null ? 1 : slices(upserts.size(), threads);
        if (slices == 1) {
            write(writer, 0, upserts.size());
            return;
        }
        List<CompletableFuture<Void>> parts = new ArrayList<>();
        for (int s = 0; s < slices; s++) {
            int from = upserts.size() * s / slices;
            int to = upserts.size() * (s + 1) / slices;
            parts.add(CompletableFuture.runAsync(() -> {
                try {
                    write(writer, from, to);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, helpers));
        }
        try {
            // join() waits uninterruptibly: the writer thread is never interrupted in Lucene's I/O.
            CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    private void write(IndexWriter writer, int from, int to) throws IOException {
        for (int i = from; i < to; i++) {
            writer.updateDocument(new Term(LuceneDocuments.KEY, upserts.get(i).key()),
                    LuceneDocuments.document(upserts.get(i), vectors.get(i)));
        }
    }
}

package dev.engram.memory.lucene;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemoryStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    /** Reads the events after {@code afterSeq} (at most {@code maxEvents}) and the current state of their items, and embeds the items. */
    static IndexBatch prepare(MemoryStore store, LuceneDocuments documents, Embedder embedder, long afterSeq, int maxEvents) {
        List<ChangeEvent> events = store.changes().since(afterSeq, maxEvents);
        // Only the last event per item matters: the current state is fetched from the store.
        Map<String, ChangeEvent> latest = new LinkedHashMap<>();
        for (ChangeEvent e : events) {
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
        List<float[]> vectors = upserts.isEmpty() ? List.of()
                : embedder.embed(upserts.stream().map(LuceneDocuments::embedded).toList());
        return new IndexBatch(events, deletes, upserts, vectors);
    }

    void writeTo(IndexWriter writer) throws IOException {
        for (String key : deletes) {
            writer.deleteDocuments(new Term(LuceneDocuments.KEY, key));
        }
        for (int i = 0; i < upserts.size(); i++) {
            writer.updateDocument(new Term(LuceneDocuments.KEY, upserts.get(i).key()),
                    LuceneDocuments.document(upserts.get(i), vectors.get(i)));
        }
    }
}

package dev.engram.memory.lucene;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.MemoryStore;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;

/**
 * What the index records in each commit (the applied change-log sequence, the embedder, the document
 * format, the store's identity and a fingerprint of the last applied change), and the one decision
 * made from it when an index is opened: whether it can be used as it is, or must be rebuilt.
 */
final class IndexCommit {
    static final String SEQ_DATA = "engram.seq";
    static final String EMBEDDER_DATA = "engram.embedder";
    static final String FORMAT_DATA = "engram.format";
    static final String STORE_DATA = "engram.store";
    static final String CHANGE_DATA = "engram.change";
    /** How many documents were indexed without vectors, while the embedding model was unavailable. */
    static final String WITHOUT_VECTORS_DATA = "engram.withoutVectors";
    /** The document layout; an index written with another (or with other document settings) is rebuilt at open. */
    static final String FORMAT = "5";

    /** Why an index must be rebuilt; {@code alarming} when it means the store changed under the index. */
    record Rebuild(String why, boolean alarming) {
    }

    private IndexCommit() {
    }

    /**
     * The commit data for an index that has applied the log up to {@code seq}, whose change is {@code lastChange}, with
     * {@code withoutVectors} documents indexed while the embedding model was unavailable.
     */
    static Map<String, String> data(long seq, String embedderId, String format, String storeId, String lastChange,
            long withoutVectors) {
        return Map.of(SEQ_DATA, Long.toString(seq), EMBEDDER_DATA, embedderId, FORMAT_DATA, format,
                STORE_DATA, storeId, CHANGE_DATA, lastChange, WITHOUT_VECTORS_DATA, Long.toString(withoutVectors));
    }

    /** What identifies one change-log event: its item and what happened to it. */
    static String fingerprint(ChangeEvent e) {
        return LuceneDocuments.key(e) + '\u0000' + e.op();
    }

    /**
     * Whether the index whose last commit holds {@code data} must be rebuilt before it serves {@code store}:
     * built with another embedder or an older format, ahead of the store, built for another store, or
     * disagreeing with the store about the last change it applied (a backup restored and written to since).
     */
    static Optional<Rebuild> check(Map<String, String> data, Optional<String> olderFormat, String embedderId,
            MemoryStore store, String storeId) {
        long committed = Long.parseLong(data.getOrDefault(SEQ_DATA, "0"));
        String builtWith = data.get(EMBEDDER_DATA);
        long storeSeq = store.changes().lastSeq();
        if (builtWith != null && !builtWith.equals(embedderId)) {
            return Optional.of(new Rebuild("it was built with embedder " + builtWith + ", now " + embedderId, false));
        }
        if (olderFormat.isPresent()) {
            return Optional.of(new Rebuild("it has document format '" + olderFormat.get() + "', now another", false));
        }
        if (committed > storeSeq) {
            return Optional.of(new Rebuild("it is ahead of the memory store (sequence " + committed + " > " + storeSeq
                    + "): the store was restored or replaced", true));
        }
        if (!data.getOrDefault(STORE_DATA, storeId).equals(storeId)) {
            return Optional.of(new Rebuild("it was built for another memory store (" + data.get(STORE_DATA) + ", now "
                    + storeId + ")", true));
        }
        if (committed > 0 && data.containsKey(CHANGE_DATA) && !data.get(CHANGE_DATA).equals(changeAt(store, committed))) {
            return Optional.of(new Rebuild("it and the memory store disagree about change " + committed
                    + " (the store was restored from a backup and written to since?)", true));
        }
        return Optional.empty();
    }

    private static String changeAt(MemoryStore store, long seq) {
        return store.changes().since(seq - 1, 1).stream().filter(e -> e.seq() == seq).findFirst()
                .map(IndexCommit::fingerprint).orElse("");
    }

    /** {@link #FORMAT} with the settings that decide the documents' text. */
    static String format(String layout) {
        return FORMAT + "; " + layout;
    }

    /**
     * The format of an existing index written with another layout than {@code format}, or with a segment not sorted by
     * scope ({@link ScopeDocs#SORT}: a writer sorted so cannot add to it, and scoped searches rely on it), if it is one.
     */
    static Optional<String> olderFormat(Directory directory, String format) throws IOException {
        if (!DirectoryReader.indexExists(directory)) {
            return Optional.empty();
        }
        SegmentInfos segments = SegmentInfos.readLatestCommit(directory);
        Map<String, String> data = segments.getUserData();
        String written = data.getOrDefault(FORMAT_DATA, "1");
        if (data.containsKey(EMBEDDER_DATA) && !format.equals(written)) {
            return Optional.of(written);
        }
        for (SegmentCommitInfo segment : segments) {
            if (!ScopeDocs.SORT.equals(segment.info.getIndexSort())) {
                return Optional.of(written + ", a segment sorted " + (segment.info.getIndexSort() == null ? "by nothing"
                        : "by " + segment.info.getIndexSort()) + " rather than by scope");
            }
        }
        return Optional.empty();
    }
}

package dev.engram.memory.lucene;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opening the index's files for {@link LuceneIndexer}: the writer's configuration (sorted by scope, the HNSW graph's
 * settings), an index of an older format started anew, and an unusable directory moved aside.
 */
final class IndexFiles {
    private static final Logger LOG = LoggerFactory.getLogger(IndexFiles.class);

    private IndexFiles() {
    }

    /** How the writer is configured, and the format ({@link IndexCommit#format}) the index is written in. */
    record Settings(Analyzer analyzer, int indexingBufferMb, int graphMaxConn, int graphBeamWidth, double segmentsPerTier,
            String format) {
    }

    /** An open index: its directory, writer and searchers, and the older format it had, if it was started anew. */
    record Opened(Directory directory, IndexWriter writer, SearcherManager searchers, Optional<String> oldFormat) {
    }

    /** Opens the index in {@code path} (in memory when null); on failure closes what it opened. */
    static Opened open(Path path, Settings settings) throws IOException {
        Directory directory = path == null ? new ByteBuffersDirectory() : FSDirectory.open(path);
        IndexWriter writer = null;
        try {
            Optional<String> oldFormat = IndexCommit.olderFormat(directory, settings.format());
            IndexWriterConfig config = new IndexWriterConfig(settings.analyzer());
            // An index of an older format may be sorted differently, which Lucene cannot append to: start it anew.
            config.setOpenMode(oldFormat.isPresent() ? IndexWriterConfig.OpenMode.CREATE
                    : IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
            // Each scope's documents side by side: a scoped query then reads a short run of each posting
            // list instead of skipping through the postings of every other scope.
            config.setIndexSort(ScopeDocs.SORT);
            // A bulk load (a rebuild, a long backlog) then becomes a few large segments rather than many
            // small ones: every search pays per segment (term lookups, a graph walk each), so fewer is faster.
            config.setRAMBufferSizeMB(settings.indexingBufferMb());
            org.apache.lucene.index.TieredMergePolicy merges = new org.apache.lucene.index.TieredMergePolicy();
            merges.setSegmentsPerTier(settings.segmentsPerTier());
            config.setMergePolicy(merges);
            org.apache.lucene.codecs.KnnVectorsFormat vectors = new org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat(
                    settings.graphMaxConn(), settings.graphBeamWidth());
            // Same codec name as the default, so any Lucene reads the index; only how graphs are built differs.
            config.setCodec(new org.apache.lucene.codecs.lucene104.Lucene104Codec() {
                @Override
                public org.apache.lucene.codecs.KnnVectorsFormat getKnnVectorsFormatForField(String field) {
                    return vectors;
                }
            });
            writer = new IndexWriter(directory, config);
            return new Opened(directory, writer, new SearcherManager(writer, null), oldFormat);
        } catch (IOException | RuntimeException e) {
            org.apache.lucene.util.IOUtils.closeWhileHandlingException(writer, directory);
            throw e;
        }
    }

    /** Renames an unusable index directory (or file) beside itself; empty when there is none or it cannot be moved. */
    static Optional<Path> moveAside(Path path) {
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        Path aside = path.resolveSibling(path.getFileName() + ".broken-" + System.currentTimeMillis());
        try {
            Files.move(path, aside);
            return Optional.of(aside);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot move the unusable search index {} aside: {}", path, e.getMessage());
            return Optional.empty();
        }
    }
}

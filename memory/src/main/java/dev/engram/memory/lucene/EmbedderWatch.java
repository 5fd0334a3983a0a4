package dev.engram.memory.lucene;

import dev.engram.memory.Embedder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedding model as the index and the searches use it: a model that fails (or could not be opened,
 * {@link Embedder#unavailable}) does not fail them. Documents are then indexed without vectors and
 * searches answer with BM25 alone, with a warning when the failure starts and a reason in the search's
 * health until the model works again. Documents indexed without vectors are counted, so that a later
 * open with a working model rebuilds them.
 */
final class EmbedderWatch {
    private static final Logger LOG = LoggerFactory.getLogger(EmbedderWatch.class);

    private final Embedder embedder;
    private volatile String failure;
    private final AtomicLong withoutVectors = new AtomicLong();

    EmbedderWatch(Embedder embedder) {
        this.embedder = embedder;
    }

    Embedder embedder() {
        return embedder;
    }

    /** The texts' vectors in order, or a null for each when the model fails. */
    List<float[]> embed(List<String> texts) {
        try {
            List<float[]> vectors = embedder.embed(texts);
            worked();
            return vectors;
        } catch (RuntimeException e) {
            failed(e);
            withoutVectors.addAndGet(texts.size());
            return Collections.nCopies(texts.size(), null);
        }
    }

    /** The query's vector; empty when the model fails. */
    Optional<float[]> embedQuery(String query) {
        try {
            float[] vector = embedder.embedQuery(query);
            worked();
            return Optional.of(vector);
        } catch (RuntimeException e) {
            failed(e);
            return Optional.empty();
        }
    }

    /** Whether the model embeds now (one short probe); a failure is reported as any other. */
    boolean works() {
        try {
            embedder.embed(List.of("probe"));
            worked();
            return true;
        } catch (RuntimeException e) {
            failed(e);
            return false;
        }
    }

    /** Documents indexed without vectors since the index was last built whole. */
    long withoutVectors() {
        return withoutVectors.get();
    }

    void withoutVectors(long count) {
        withoutVectors.set(count);
    }

    private void failed(RuntimeException e) {
        String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (!reason.equals(failure)) {
            LOG.warn("The embedding model {} failed ({}); search answers with BM25 alone until it works again", embedder.id(),
                    reason);
        }
        failure = reason;
    }

    private void worked() {
        if (failure != null) {
            LOG.info("The embedding model {} works again", embedder.id());
            failure = null;
        }
    }

    /** Why search is degraded by the model, if it is. */
    List<String> reasons() {
        List<String> out = new ArrayList<>();
        String now = failure;
        if (now != null) {
            out.add("The embedding model " + embedder.id() + " is unavailable (" + now + "): search answers with BM25 alone; "
                    + "fix the model and restart.");
        }
        long missing = withoutVectors.get();
        if (missing > 0) {
            out.add(missing + " documents were indexed while the embedding model was unavailable and are found by BM25 "
                    + "alone; they get their vectors when the index is next opened with a working model, or with a reindex.");
        }
        return out;
    }
}

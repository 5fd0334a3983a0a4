package dev.engram.memory.lucene;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Lucene's one start-up line ({@code "Java vector incubator API enabled; uses preferredBitSize=…"}) goes through
 * {@code java.util.logging} at INFO to the application's console. Engram quiets that logger to WARNING when a search
 * is built, unless the application configured it: a level set on it (in code or {@code logging.properties}) is kept.
 */
final class LuceneLogging {
    /** The logger Lucene's vectorization provider writes to. */
    static final String VECTORIZATION = "org.apache.lucene.internal.vectorization";

    /** Held: {@code java.util.logging} keeps loggers only weakly, and would forget the level. */
    private static final Logger LOGGER = Logger.getLogger(VECTORIZATION);

    private LuceneLogging() {
    }

    /** Quiets Lucene's vectorization logger to WARNING unless the application set its level. */
    static void quietVectorizationUnlessConfigured() {
        synchronized (LOGGER) {
            if (LOGGER.getLevel() == null) {
                LOGGER.setLevel(Level.WARNING);
            }
        }
    }
}

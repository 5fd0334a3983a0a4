package dev.engram.memory.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A library user's console gets no Lucene INFO line from Engram's search, unless the application asked for it. */
class LuceneLoggingTest {
    private final Logger vectorization = Logger.getLogger(LuceneLogging.VECTORIZATION);
    private Level before;

    @BeforeEach
    void remember() {
        before = vectorization.getLevel();
    }

    @AfterEach
    void restore() {
        vectorization.setLevel(before);
    }

    private static void buildASearch() {
        try (MemoryStore store = MemoryStore.inMemory();
                MemorySearch search = LuceneMemorySearch.builder(store,
                        Embedder.unavailable("test-model", 8, "no model in this test")).build()) {
            assertThat(search).isNotNull();
        }
    }

    @Test
    void buildingASearchQuietsLucenesVectorizationLineToWarning() {
        vectorization.setLevel(null);
        buildASearch();
        assertThat(vectorization.getLevel()).isEqualTo(Level.WARNING);
        assertThat(vectorization.isLoggable(Level.INFO)).isFalse();
    }

    @Test
    void aLevelTheApplicationSetIsKept() {
        vectorization.setLevel(Level.INFO);
        buildASearch();
        assertThat(vectorization.getLevel()).isEqualTo(Level.INFO);
    }
}

package dev.engram.bench.eval;

import dev.engram.memory.Embedder;
import dev.engram.memory.Fusion;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.SearchMode;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The configurable part of a retrieval evaluation: the things a user of Engram could set.
 *
 * @param embedder   the embedding model (the caller owns and closes it)
 * @param modes      which retrievers to report
 * @param fusion     how hybrid fuses
 * @param candidates how deep each retriever looks before fusing
 * @param contextBefore earlier messages of its session BM25 sees with each conversation message
 * @param contextAfter  later messages of its session BM25 sees with each conversation message
 * @param options       further settings of the search index under evaluation (the builder's other options)
 * @param perQuestion   told each question's figure, for fold selection outside the harness
 */
public record EvalSetup(Embedder embedder, Set<SearchMode> modes, Fusion fusion, int candidates, int contextBefore,
        int contextAfter, UnaryOperator<LuceneMemorySearch.Builder> options, PerQuestion perQuestion) {
    /** Receives one question's figure: its mode, its group (a LoCoMo conversation, a SciFact query id), category, value. */
    @FunctionalInterface
    public interface PerQuestion {
        void record(SearchMode mode, String group, int category, double value);
    }

    /** A setup with the index's other options at their defaults and no per-question output. */
    public EvalSetup(Embedder embedder, Set<SearchMode> modes, Fusion fusion, int candidates, int contextBefore,
            int contextAfter) {
        this(embedder, modes, fusion, candidates, contextBefore, contextAfter, b -> b, (m, g, c, v) -> { });
    }

    public EvalSetup {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(perQuestion, "perQuestion");
        Objects.requireNonNull(embedder, "embedder");
        modes = Set.copyOf(modes);
        if (modes.isEmpty()) {
            throw new IllegalArgumentException("choose at least one search mode");
        }
        Objects.requireNonNull(fusion, "fusion");
    }

    /** All three modes and the library's defaults: {@link Fusion#defaults()}, the index's candidates and conversation context. */
    public static EvalSetup defaults(Embedder embedder) {
        return new EvalSetup(embedder, EnumSet.allOf(SearchMode.class), Fusion.defaults(), LuceneMemorySearch.DEFAULT_CANDIDATES,
                LuceneMemorySearch.DEFAULT_CONTEXT_BEFORE, LuceneMemorySearch.DEFAULT_CONTEXT_AFTER);
    }

    /** One line saying what was measured, for a report's header. */
    public String describe(String model) {
        return "model " + model + ", fusion " + fusion.spec() + ", candidates " + candidates + ", conversation context "
                + contextBefore + " before and " + contextAfter + " after";
    }

    MemorySearch openSearch(dev.engram.memory.MemoryStore store) {
        return options.apply(LuceneMemorySearch.builder(store, embedder).candidates(candidates).backgroundInterval(Duration.ZERO)
                .conversationContext(contextBefore, contextAfter).batchEvents(512)).build();
    }

    /** The modes in a fixed order: bm25, vector, hybrid. */
    java.util.List<SearchMode> orderedModes() {
        return EnumSet.copyOf(modes).stream().toList();
    }
}

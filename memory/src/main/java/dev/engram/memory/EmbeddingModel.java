package dev.engram.memory;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The sentence-embedding models bundled as Maven artifacts, with how each must be run. */
public enum EmbeddingModel {
    /** sentence-transformers/all-MiniLM-L6-v2, int8-quantised: 384 dimensions, mean pooling, 256 tokens. */
    ALL_MINILM_L6_V2_Q("minilm", "all-minilm-l6-v2-q", 384, Pooling.MEAN, 256, "", ""),
    /**
     * BAAI/bge-small-en-v1.5, int8-quantised: 384 dimensions, CLS pooling, 512 tokens. Its model card's query
     * instruction ({@link #instruction()}) is not put before queries: on the shared data sets the defaults score as
     * well without it (SciFact nDCG@10 0.7721 against 0.7674, LoCoMo recall@10 0.8202 against 0.8203), and it made a
     * query about 8 tokens and a quarter of its embedding CPU longer.
     */
    BGE_SMALL_EN_V15_Q("bge-small", "bge-small-en-v1.5-q", 384, Pooling.CLS, 512, "",
            "Represent this sentence for searching relevant passages: ");

    /** The short name of {@link #defaultModel()}. */
    public static final String DEFAULT_NAME = "bge-small";

    /**
     * The model {@link Embedder#onnxDefault()} runs: bge-small, the better of the two on both dev sets (see the memory
     * module's README); MiniLM embeds about twice as fast.
     */
    public static EmbeddingModel defaultModel() {
        return byName(DEFAULT_NAME);
    }

    /** How token vectors become one sentence vector. */
    public enum Pooling {
        MEAN, CLS
    }

    private final String shortName;
    private final String resource;
    private final int dimensions;
    private final Pooling pooling;
    private final int maxTokens;
    private final String queryPrefix;
    private final String instruction;

    EmbeddingModel(String shortName, String resource, int dimensions, Pooling pooling, int maxTokens, String queryPrefix,
            String instruction) {
        this.shortName = shortName;
        this.resource = resource;
        this.dimensions = dimensions;
        this.pooling = pooling;
        this.maxTokens = maxTokens;
        this.queryPrefix = queryPrefix;
        this.instruction = instruction;
    }

    /** The name used in configuration and on the command line: {@code minilm} or {@code bge-small}. */
    public String shortName() {
        return shortName;
    }

    public int dimensions() {
        return dimensions;
    }

    public Pooling pooling() {
        return pooling;
    }

    /** The longest token window the model is run on; longer texts are split and pooled. */
    public int maxTokens() {
        return maxTokens;
    }

    /** Prepended to queries (not documents) by default; empty for both bundled models. */
    public String queryPrefix() {
        return queryPrefix;
    }

    /**
     * The query instruction the model's card proposes for retrieval, empty when it has none; an embedder puts it before
     * queries only when asked to ({@code OnnxEmbedder.Builder#queryPrefix}).
     */
    public String instruction() {
        return instruction;
    }

    /** The classpath resource of the ONNX model file. */
    public String modelResource() {
        return "/" + resource + ".onnx";
    }

    /** The classpath resource of the HuggingFace tokenizer file. */
    public String tokenizerResource() {
        return "/" + resource + "-tokenizer.json";
    }

    /**
     * Looks a model up by its short name ({@code minilm}, {@code bge-small}) or its enum name.
     *
     * @throws IllegalArgumentException naming the models that exist
     */
    public static EmbeddingModel byName(String name) {
        for (EmbeddingModel m : values()) {
            if (m.shortName.equalsIgnoreCase(name) || m.name().equalsIgnoreCase(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown embedding model '" + name + "'; choose one of "
                + Arrays.stream(values()).map(m -> m.shortName).collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return shortName.toLowerCase(Locale.ROOT);
    }
}

package dev.engram.agents;

import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Locale;
import java.util.Objects;

/**
 * Counts the tokens of prompt text, to keep an agent inside its context window.
 *
 * <p>{@link #forModel} picks jtokkit's exact encoding for OpenAI models ({@code o200k_base} for
 * GPT-4o, GPT-4.1, GPT-5 and the o-series, {@code cl100k_base} for GPT-4 and GPT-3.5). Other models
 * (Claude, Gemini, Llama, ...) have tokenizers that are not published as BPE tables, so they get
 * {@link #estimate()}: {@code cl100k_base} counts plus 20 %, which on English prose over-counts
 * rather than under-counts their tokenizers, so that compaction starts early rather than late.
 */
@FunctionalInterface
public interface TokenCounter {
    /** The number of tokens {@code text} takes. */
    int count(String text);

    /** The exact encoding for OpenAI model names, {@link #estimate()} for every other model. */
    static TokenCounter forModel(String modelName) {
        Objects.requireNonNull(modelName, "model name must not be null");
        String m = modelName.toLowerCase(Locale.ROOT);
        int slash = m.lastIndexOf('/');
        m = slash >= 0 ? m.substring(slash + 1) : m;
        if (m.startsWith("gpt-4o") || m.startsWith("gpt-4.1") || m.startsWith("gpt-4.5") || m.startsWith("gpt-5")
                || m.matches("o[1-9].*") || m.startsWith("chatgpt-4o")) {
            return encoding(EncodingType.O200K_BASE);
        }
        if (m.startsWith("gpt-4") || m.startsWith("gpt-3.5")) {
            return encoding(EncodingType.CL100K_BASE);
        }
        return estimate();
    }

    /** A jtokkit encoding. */
    static TokenCounter encoding(EncodingType type) {
        Encoding encoding = JtokkitEncodings.REGISTRY.getEncoding(Objects.requireNonNull(type, "encoding type must not be null"));
        return encoding::countTokensOrdinary;
    }

    /** The documented estimate for models without a published encoding: {@code cl100k_base} plus 20 %. */
    static TokenCounter estimate() {
        Encoding cl100k = JtokkitEncodings.REGISTRY.getEncoding(EncodingType.CL100K_BASE);
        return text -> {
            int n = cl100k.countTokensOrdinary(text);
            return n + (n + 4) / 5;
        };
    }

    /** The model name within a spec ({@code openai:gpt-4o} gives {@code gpt-4o}), which picks the counter. */
    static String modelName(String spec) {
        int colon = spec.indexOf(':');
        String rest = colon >= 0 && !spec.startsWith("http") ? spec.substring(colon + 1) : spec;
        int hash = rest.lastIndexOf('#');
        return hash >= 0 ? rest.substring(hash + 1) : rest;
    }
}

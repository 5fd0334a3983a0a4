package dev.engram.agents;

import java.util.Map;

/**
 * The largest context window an agent may declare, by its model's provider: no model of the provider takes more, so
 * a larger window would only let the prompt grow past what the model accepts (and the memory it takes with it).
 * Engram keeps no table of models, so the figure is the largest any model of the provider had when this was
 * written; a model spec of any other kind (an {@code http(s)://} endpoint, {@code script:}) gets the overall
 * {@link #MAX}.
 *
 * <table>
 * <caption>Largest context windows</caption>
 * <tr><th>provider</th><th>tokens</th><th>the model that has it</th></tr>
 * <tr><td>{@code openai:}</td><td>1,047,576</td><td>GPT-4.1</td></tr>
 * <tr><td>{@code anthropic:}</td><td>1,000,000</td><td>Claude Sonnet 4 (long context)</td></tr>
 * <tr><td>{@code gemini:}</td><td>2,097,152</td><td>Gemini 1.5 Pro</td></tr>
 * <tr><td>{@code ollama:}</td><td>1,048,576</td><td>the largest local models' settings</td></tr>
 * <tr><td>anything else</td><td>2,097,152</td><td>{@link #MAX}</td></tr>
 * </table>
 */
public final class ContextWindows {
    /** The largest context window of any agent: 2,097,152 tokens (2^21). */
    public static final int MAX = 2_097_152;

    private static final Map<String, Integer> BY_PROVIDER = Map.of("openai", 1_047_576, "anthropic", 1_000_000,
            "gemini", MAX, "ollama", 1_048_576);

    private ContextWindows() {
    }

    /** The largest context window for an agent of model {@code spec} ({@code provider:model}, an endpoint, ...). */
    public static int max(String spec) {
        int colon = spec.indexOf(':');
        return colon > 0 ? BY_PROVIDER.getOrDefault(spec.substring(0, colon), MAX) : MAX;
    }

    /** {@code tokens}, or the largest window for the model when it asks for more (for agent files, which may only tighten). */
    static int clamp(String spec, int tokens) {
        return Math.min(tokens, max(spec));
    }

    /** Refuses a window larger than the model's largest, with a sentence that names the largest. */
    static void check(String agentName, String spec, int tokens) {
        int max = max(spec);
        if (tokens > max) {
            int colon = spec.indexOf(':');
            String models = colon > 0 && BY_PROVIDER.containsKey(spec.substring(0, colon))
                    ? spec.substring(0, colon) + " models take" : "any model takes";
            throw new IllegalArgumentException("agent '" + agentName + "' asks for a context window of " + tokens
                    + " tokens; the most " + models + " is " + max + " tokens (context_window_limit at most " + max + ")");
        }
    }
}

package dev.engram.agents;

import dev.engram.framework.model.ModelSpec;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Model names between Letta and Engram, for code that speaks Letta's API (the server): Letta names a model by
 * a handle ({@code openai/gpt-4o-mini}) or an {@code llm_config}; Engram by a spec ({@code openai:gpt-4o-mini}).
 */
public final class LettaModels {
    private LettaModels() {
    }

    /**
     * The Engram spec of a Letta handle: {@code provider/model} with a provider Letta names
     * ({@code openai}, {@code anthropic}, {@code google_ai}, {@code ollama}) becomes {@code provider:model};
     * a string that already holds a {@code :} is taken as an Engram spec. Anything else is empty.
     */
    public static Optional<String> spec(String handle) {
        if (handle.indexOf(':') > 0) {
            return Optional.of(handle);
        }
        int slash = handle.indexOf('/');
        if (slash <= 0 || slash == handle.length() - 1) {
            return Optional.empty();
        }
        String provider = LettaNames.PROVIDERS.get(handle.substring(0, slash));
        return provider == null ? Optional.empty() : Optional.of(provider + ":" + handle.substring(slash + 1));
    }

    /** Letta's handle for an Engram spec: {@code provider/model} at a provider Letta names, else the spec itself. */
    public static String handle(String spec) {
        int colon = spec.indexOf(':');
        if (colon > 0 && !ModelSpec.namesEndpoint(spec)) {
            String provider = spec.substring(0, colon);
            for (Map.Entry<String, String> e : LettaNames.PROVIDERS.entrySet()) {
                if (e.getValue().equals(provider)) {
                    return e.getKey() + "/" + spec.substring(colon + 1);
                }
            }
        }
        return spec;
    }

    /** Letta's {@code llm_config} for the agent's model and context window, as an Agent File writes it. */
    public static ObjectNode llmConfig(AgentDefinition definition) {
        return LettaAgentFileWriter.llmConfig(definition);
    }

    /**
     * Letta's {@code llm_config} as {@link #llmConfig(AgentDefinition)} gives it, with the {@code model_endpoint} the
     * model is really called at in {@code environment}: a provider's base-URL variable ({@code OPENAI_BASE_URL} and
     * the like, see {@link dev.engram.framework.model.ModelSpec#baseUrlOverride}) in place of the provider's own URL.
     */
    public static ObjectNode llmConfig(AgentDefinition definition, Map<String, String> environment) {
        ObjectNode llm = LettaAgentFileWriter.llmConfig(definition);
        String spec = definition.model();
        int colon = spec.indexOf(':');
        if (colon > 0 && !ModelSpec.namesEndpoint(spec)) {
            ModelSpec.baseUrlOverride(spec.substring(0, colon), environment)
                    .ifPresent(url -> llm.put("model_endpoint", url));
        }
        return llm;
    }
}

package dev.engram.server;

import dev.engram.framework.ModelPolicy;
import dev.engram.framework.model.ModelSpec;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model specs this server can run, for {@code GET /v1/models/}: the operator's default model first; then each
 * provider whose key (or, for Ollama, {@code OLLAMA_HOST}) the operator's environment sets, with the models that
 * provider's own models endpoint lists (the keys and base URLs {@code ModelSpec.parse} reads); then the operator's
 * allowed endpoints ({@code --allow-model}): an exact spec as it is, a pattern ({@code http://host/v1#*}) with the
 * models its endpoint lists that the pattern allows; then the models of the providers an admin registered
 * ({@link Providers}). A provider that does not answer within a few seconds is left out (and logged): the list is what
 * can run now. Every spec listed is one the model policy allows.
 */
final class ModelCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(ModelCatalog.class);

    private final String defaultModel;
    private final ModelPolicy policy;
    private final Providers providers;

    /** A model spec and where it comes from: a provider's name, and whether an admin registered it (Letta's byok). */
    record Entry(String spec, String providerName, boolean registered) {
    }

    ModelCatalog(String defaultModel, ModelPolicy policy, Providers providers) {
        this.defaultModel = defaultModel;
        this.policy = policy;
        this.providers = providers;
    }

    /** The specs, the default model first, each once (the first source that lists a spec names its provider). */
    List<Entry> entries() {
        Map<String, String> env = providers.operatorEnvironment();
        Map<String, Entry> entries = new LinkedHashMap<>();
        entries.put(defaultModel, new Entry(defaultModel, "default", false));
        if (set(env, "OPENAI_API_KEY")) {
            list(entries, "openai", "openai", env.getOrDefault("OPENAI_BASE_URL", ""), env.get("OPENAI_API_KEY"), "openai:");
        }
        if (set(env, "ANTHROPIC_API_KEY")) {
            list(entries, "anthropic", "anthropic", env.getOrDefault("ANTHROPIC_BASE_URL", ""), env.get("ANTHROPIC_API_KEY"),
                    "anthropic:");
        }
        if (set(env, "GEMINI_API_KEY") || set(env, "GOOGLE_API_KEY")) {
            list(entries, "google_ai", "google_ai", env.getOrDefault("GEMINI_BASE_URL", ""),
                    set(env, "GEMINI_API_KEY") ? env.get("GEMINI_API_KEY") : env.get("GOOGLE_API_KEY"), "gemini:");
        }
        if (set(env, "OLLAMA_HOST")) {
            String host = env.get("OLLAMA_HOST");
            list(entries, "ollama", "ollama", host.startsWith("http") ? host : "http://" + host, "", "ollama:");
        }
        for (String pattern : policy.patterns()) {
            int hash = pattern.indexOf('#');
            if (!ModelSpec.namesEndpoint(pattern) || hash < 0) {
                continue;
            }
            String endpoint = pattern.substring(0, hash);
            if (!pattern.contains("*") && !pattern.contains("?")) {
                entries.putIfAbsent(pattern, new Entry(pattern, "endpoint", false));
            } else if (!endpoint.contains("*") && !endpoint.contains("?")) {
                String key = env.getOrDefault(ModelSpec.endpointKeyVariable(URI.create(endpoint)), "");
                list(entries, "endpoint", "openai", endpoint, key, endpoint + "#");
            }
        }
        for (Providers.Registered r : providers.registered()) {
            try {
                for (String model : ProviderModels.list(r.record().type(), r.record().baseUrl(), r.apiKey())) {
                    String spec = Providers.spec(r.record(), model);
                    entries.putIfAbsent(spec, new Entry(spec, r.record().name(), true));
                }
            } catch (ProviderModels.Failed e) {
                LOG.warn("Listing the models of provider '{}' failed: {}; its models are not listed", r.record().name(),
                        e.getMessage());
            }
        }
        entries.keySet().removeIf(s -> !s.equals(defaultModel) && !policy.allows(s));
        return List.copyOf(entries.values());
    }

    private static void list(Map<String, Entry> entries, String name, String type, String base, String key, String prefix) {
        try {
            for (String model : ProviderModels.list(type, base, key)) {
                entries.putIfAbsent(prefix + model, new Entry(prefix + model, name, false));
            }
        } catch (ProviderModels.Failed e) {
            LOG.warn("Listing the models of {} failed: {}; its models are not listed", name, e.getMessage());
        }
    }

    private static boolean set(Map<String, String> env, String variable) {
        String v = env.get(variable);
        return v != null && !v.isBlank();
    }
}

package dev.engram.server;

import dev.engram.framework.model.ModelSpec;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.ProviderRecord;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The model providers an admin registered ({@code /v1/providers}), with their keys opened: the environment model specs
 * are resolved in (the operator's, to which each registered provider adds its key where the operator's has none), and
 * the spec of each model a registered provider lists. A provider at an endpoint of its own gives endpoint specs
 * ({@code http(s)://host/v1#model}), which only the operator's {@code --allow-model} patterns let anyone use.
 */
final class Providers {
    private static final Logger LOG = LoggerFactory.getLogger(Providers.class);

    private final MemoryStore store;
    private final ProviderSecrets secrets;
    private final Map<String, String> env;

    /** A registered provider and its key. */
    record Registered(ProviderRecord record, String apiKey) {
    }

    Providers(MemoryStore store, ProviderSecrets secrets, Map<String, String> env) {
        this.store = store;
        this.secrets = secrets;
        this.env = Map.copyOf(env);
    }

    ProviderSecrets secrets() {
        return secrets;
    }

    /** The operator's environment. */
    Map<String, String> operatorEnvironment() {
        return env;
    }

    /** The registered providers whose key opens with the operator's key (one that does not is logged and left out). */
    List<Registered> registered() {
        if (!secrets.canSeal()) {
            return List.of();
        }
        List<Registered> out = new ArrayList<>();
        for (ProviderRecord p : store.providers().list()) {
            Optional<String> key = secrets.open(p.name(), p.sealedApiKey());
            if (key.isPresent()) {
                out.add(new Registered(p, key.get()));
            } else {
                LOG.warn("The key of provider '{}' does not open with {}; register it again (PATCH /v1/providers/{})",
                        p.name(), ProviderSecrets.KEY_VARIABLE, p.id());
            }
        }
        return out;
    }

    /** The environment model specs resolve in: the operator's, plus each registered provider's key where it has none. */
    Map<String, String> environment() {
        List<Registered> registered = registered();
        if (registered.isEmpty()) {
            return env;
        }
        Map<String, String> out = new HashMap<>(env);
        for (Registered r : registered) {
            ProviderRecord p = r.record();
            String base = p.baseUrl();
            switch (p.type()) {
                case "anthropic" -> addProvider(out, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", r.apiKey(), base);
                case "google_ai" -> addProvider(out, "GEMINI_API_KEY", "GEMINI_BASE_URL", r.apiKey(), base);
                default -> {
                    if (base.isBlank() && p.type().equals("openai")) {
                        out.putIfAbsent("OPENAI_API_KEY", r.apiKey());
                    } else if (!base.isBlank() && !r.apiKey().isBlank()) {
                        out.putIfAbsent(ModelSpec.endpointKeyVariable(URI.create(ProviderModels.base(p.type(), base))),
                                r.apiKey());
                    }
                }
            }
        }
        return Map.copyOf(out);
    }

    private static void addProvider(Map<String, String> env, String keyVariable, String baseVariable, String key, String base) {
        if (env.getOrDefault(keyVariable, "").isBlank()) {
            env.put(keyVariable, key);
            if (!base.isBlank()) {
                env.put(baseVariable, base);
            }
        }
    }

    /** The model spec of {@code model} at a registered provider. */
    static String spec(ProviderRecord p, String model) {
        return switch (p.type()) {
            case "anthropic" -> "anthropic:" + model;
            case "google_ai" -> "gemini:" + model;
            default -> p.baseUrl().isBlank() ? ProviderModels.TYPES.get(p.type()) + ":" + model
                    : ProviderModels.base(p.type(), p.baseUrl()) + "#" + model;
        };
    }
}

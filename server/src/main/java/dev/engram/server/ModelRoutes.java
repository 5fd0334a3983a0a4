package dev.engram.server;

import static io.helidon.http.Method.GET;

import dev.engram.agents.AgentDefinition;
import dev.engram.agents.ContextWindows;
import dev.engram.agents.LettaModels;
import dev.engram.framework.model.ModelSpec;
import dev.engram.memory.EmbeddingModel;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/models}: the language models this server can run ({@link ModelCatalog}, the operator's default model
 * first) as Letta's {@code Model} (an {@code LLMConfig} with a handle), and the embedding models bundled with Engram
 * as Letta's {@code EmbeddingModel}. A handle listed here is one {@code POST /v1/agents} takes as its {@code model}.
 */
final class ModelRoutes {
    /** Letta's {@code ProviderType} values, which {@code provider_type} takes. */
    private static final List<String> PROVIDER_TYPES = List.of("anthropic", "azure", "baseten", "bedrock", "cerebras",
            "chatgpt_oauth", "deepseek", "fireworks", "google_ai", "google_vertex", "groq", "hugging-face", "letta",
            "lmstudio_openai", "minimax", "mistral", "ollama", "openai", "together", "vllm", "sglang", "openrouter", "xai",
            "zai", "zai_coding");

    private final ModelCatalog catalog;

    ModelRoutes(ModelCatalog catalog) {
        this.catalog = catalog;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/models", this::list))
                .twin(Route.caller(GET, "/v1/models/embedding", this::embedding))
                .twin(Route.caller(GET, "/v1/models/embeddings", this::embedding))
                .list();
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Optional<String> type = Query.string(req, "provider_type");
        type.filter(t -> !PROVIDER_TYPES.contains(t)).ifPresent(t -> {
            throw ApiException.invalid("enum", "Input should be one of " + String.join(", ", PROVIDER_TYPES) + ", not '"
                    + t + "'", "query", "provider_type");
        });
        List<String> categories = Query.all(req, "provider_category");
        categories.stream().filter(c -> !c.equals("base") && !c.equals("byok")).findFirst().ifPresent(c -> {
            throw ApiException.invalid("enum", "Input should be 'base' or 'byok', not '" + c + "'", "query",
                    "provider_category");
        });
        Optional<String> name = Query.string(req, "provider_name");
        List<ObjectNode> models = new ArrayList<>();
        for (ModelCatalog.Entry entry : catalog.entries()) {
            ObjectNode m = model(entry);
            if (type.map(t -> t.equals(m.path("provider_type").asString())).orElse(true)
                    && name.map(n -> n.equals(m.path("provider_name").asString())).orElse(true)
                    && (categories.isEmpty() || categories.contains(m.path("provider_category").asString()))) {
                models.add(m);
            }
        }
        Api.json(res, models);
    }

    /** Letta's {@code Model} of a spec: its handle, provider and endpoint, and its context window. */
    static ObjectNode model(ModelCatalog.Entry entry) {
        String spec = entry.spec();
        String handle = LettaModels.handle(spec);
        boolean provider = !handle.equals(spec);
        String type = provider ? handle.substring(0, handle.indexOf('/')) : "openai";
        String name = provider ? handle.substring(handle.indexOf('/') + 1)
                : ModelSpec.namesEndpoint(spec) && spec.indexOf('#') > 0 ? spec.substring(spec.indexOf('#') + 1) : spec;
        String endpoint = ModelSpec.namesEndpoint(spec) && spec.indexOf('#') > 0 ? spec.substring(0, spec.indexOf('#'))
                : provider ? null : "engram";
        ObjectNode m = Body.JSON.createObjectNode();
        m.put("handle", handle);
        m.put("name", name);
        m.put("display_name", name);
        m.put("provider_type", type);
        m.put("provider_name", entry.registered() ? entry.providerName()
                : provider ? type : ModelSpec.namesEndpoint(spec) ? "endpoint" : "engram");
        m.put("model_type", "llm");
        m.put("model", name);
        m.put("model_endpoint_type", type);
        if (endpoint == null) {
            m.putNull("model_endpoint");
        } else {
            m.put("model_endpoint", endpoint);
        }
        m.put("provider_category", entry.registered() ? "byok" : "base");
        m.putNull("model_wrapper");
        m.put("context_window", Math.min(AgentDefinition.DEFAULT_CONTEXT_WINDOW, ContextWindows.max(spec)));
        m.put("max_context_window", ContextWindows.max(spec));
        m.put("put_inner_thoughts_in_kwargs", false);
        m.put("temperature", 0.7);
        m.putNull("max_tokens");
        m.put("enable_reasoner", false);
        m.putNull("reasoning_effort");
        m.put("max_reasoning_tokens", 0);
        m.put("parallel_tool_calls", false);
        return m;
    }

    /** The embedding models bundled with Engram, the default one first, as Letta's {@code EmbeddingModel}. */
    private void embedding(Caller caller, ServerRequest req, ServerResponse res) {
        List<EmbeddingModel> bundled = new ArrayList<>(List.of(EmbeddingModel.defaultModel()));
        for (EmbeddingModel e : EmbeddingModel.values()) {
            if (!bundled.contains(e)) {
                bundled.add(e);
            }
        }
        Api.json(res, bundled.stream().map(ModelRoutes::embeddingModel).toList());
    }

    private static ObjectNode embeddingModel(EmbeddingModel e) {
        ObjectNode m = Body.JSON.createObjectNode();
        m.put("handle", "engram/" + e.shortName());
        m.put("name", e.shortName());
        m.put("display_name", e.shortName() + " (bundled, runs in the server)");
        m.put("provider_type", "hugging-face");
        m.put("provider_name", "engram");
        m.put("model_type", "embedding");
        m.put("embedding_endpoint_type", "hugging-face");
        m.putNull("embedding_endpoint");
        m.put("embedding_model", e.shortName());
        m.put("embedding_dim", e.dimensions());
        m.put("embedding_chunk_size", e.maxTokens());
        m.put("batch_size", 32);
        return m;
    }
}

package dev.engram.server;

import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.agents.LettaModels;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatOptions;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ModelException;
import dev.engram.framework.model.ModelHttpException;
import dev.engram.framework.model.ToolChoice;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST /v1/agents/{agent_id}/generate} (Letta's {@code GenerateRequest}): one completion of the agent's model
 * (or {@code override_model}, a model the operator allows) for a prompt and an optional system prompt, with the agent's
 * model settings, and nothing else: no memory, no tools, nothing stored. A {@code response_schema} is answered through
 * a call to the forced tool {@code structured_output} with that schema, whose arguments are the content, as Letta does.
 */
final class GenerateRoutes {
    /** Letta's name of the tool a structured answer is forced through. */
    static final String STRUCTURED_OUTPUT = "structured_output";

    private final Api api;

    GenerateRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table().add(Route.agent(api, POST, "/v1/agents/{agent_id}/generate", this::generate)).list();
    }

    private void generate(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String prompt = body.requiredString("prompt");
        if (prompt.isEmpty()) {
            throw body.problem("string_too_short", "String should have at least 1 character", "prompt");
        }
        if (prompt.length() > api.store.limits().maxTextChars()) {
            throw body.problem("string_too_long", "The prompt has " + prompt.length() + " characters; this server takes at "
                    + "most " + api.store.limits().maxTextChars(), "prompt");
        }
        Optional<String> system = body.string("system_prompt");
        String spec = body.string("override_model").map(handle -> overrideModel(body, handle)).orElse(agent.definition().model());
        Optional<ObjectNode> schema = body.object("response_schema");
        List<ChatMessage> messages = new ArrayList<>();
        system.filter(s -> !s.isBlank()).ifPresent(s -> messages.add(new ChatMessage.System(s)));
        messages.add(new ChatMessage.User(prompt));
        ChatOptions options = agent.definition().modelSettings().chatOptions();
        List<ToolDefinition> tools = List.of();
        if (schema.isPresent()) {
            tools = List.of(structuredOutput(body, schema.get()));
            options = options.withToolChoice(ToolChoice.named(STRUCTURED_OUTPUT));
        }
        ChatModel model = api.runtime.model(spec);
        ChatResponse response;
        try {
            response = model.chat(new ChatRequest(messages, tools, options));
        } catch (ModelException e) {
            String incident = Incidents.unexpected("A generate request's model failed", e);
            String status = e instanceof ModelHttpException h ? " (the provider answered HTTP " + h.status() + ")" : "";
            throw ApiException.of(Status.BAD_GATEWAY_502, "LLM provider error: model " + LettaModels.handle(spec) + " failed"
                    + status + " (incident " + incident + "; the server's log has the details).");
        }
        String content = response.message().text();
        if (schema.isPresent()) {
            content = response.message().toolCalls().stream().filter(c -> c.name().equals(STRUCTURED_OUTPUT)).findFirst()
                    .map(c -> c.arguments()).orElseThrow(() -> ApiException.of(Status.BAD_GATEWAY_502, "LLM provider error: "
                            + "model " + LettaModels.handle(spec) + " answered without calling " + STRUCTURED_OUTPUT
                            + " for the response_schema."));
        }
        ObjectNode out = Body.JSON.createObjectNode();
        out.put("content", content);
        out.put("model", LettaModels.handle(spec));
        ObjectNode usage = out.putObject("usage");
        long in = response.usage().inputTokens();
        long made = response.usage().outputTokens();
        usage.put("message_type", "usage_statistics").put("completion_tokens", made).put("prompt_tokens", in)
                .put("total_tokens", in + made).put("step_count", 1);
        usage.putNull("run_ids");
        Api.json(res, out);
    }

    /** Engram's spec of an {@code override_model} handle: a 404 (Letta's) for none it knows, a 422 for one not allowed. */
    private String overrideModel(Body body, String handle) {
        String spec = LettaModels.spec(handle).orElseThrow(() -> ApiException.notFound("Model '" + handle + "' not found or "
                + "not accessible: name it as provider/model (openai/gpt-4o-mini, anthropic/claude-sonnet-4-5)."));
        api.runtime.modelPolicy().refusal(spec).ifPresent(problem -> {
            throw body.problem("value_error", "Model not allowed: " + problem, "override_model");
        });
        return spec;
    }

    /** Letta's tool for a structured answer: the schema's properties, all required unless it says which. */
    private static ToolDefinition structuredOutput(Body body, ObjectNode schema) {
        JsonNode properties = schema.path("properties");
        if (!properties.isObject()) {
            throw body.problem("value_error", "A response_schema is a JSON schema of an object with 'properties'",
                    "response_schema");
        }
        ObjectNode parameters = Body.JSON.createObjectNode().put("type", "object");
        parameters.set("properties", properties.deepCopy());
        if (schema.path("required").isArray()) {
            parameters.set("required", schema.path("required").deepCopy());
        } else {
            properties.propertyNames().forEach(n -> parameters.withArray("required").add(n));
        }
        try {
            return new ToolDefinition(STRUCTURED_OUTPUT, "Returns a structured response matching the requested schema.",
                    parameters, SafetyTier.READ_ONLY);
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", Incidents.clientText(e, "a response_schema"), "response_schema");
        }
    }
}

package dev.engram.framework.model;

import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolFormat;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** OpenAI Chat Completions, and every server that speaks it (Ollama, vLLM, llama.cpp, LM Studio). */
final class OpenAiChatModel implements ChatModel {
    private final ModelSpec spec;
    private final ModelHttp http;
    private final URI endpoint;

    OpenAiChatModel(ModelSpec spec) {
        this.spec = spec;
        this.http = new ModelHttp("openai-compatible server " + spec.baseUrl().getAuthority(), spec.timeout(), spec.retry());
        String base = spec.baseUrl().toString().replaceAll("/+$", "");
        this.endpoint = URI.create(base + "/chat/completions");
    }

    @Override
    public String name() {
        return "openai:" + spec.model();
    }

    /** By the model's name ({@link Vision#openAi}). */
    @Override
    public boolean supportsImages() {
        return Vision.openAi(spec.model());
    }

    /**
     * OpenAI's own API fetches images by address; the servers that speak its format locally (Ollama, vLLM, llama.cpp)
     * may not, so an address goes only to {@code api.openai.com}.
     */
    @Override
    public boolean supportsImageUrls() {
        return supportsImages() && "api.openai.com".equalsIgnoreCase(spec.baseUrl().getHost());
    }

    private Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        spec.apiKey().ifPresent(k -> h.put("Authorization", "Bearer " + k));
        return h;
    }

    ObjectNode body(ChatRequest request, boolean stream) {
        Vision.check(this, request);
        return body(spec.model(), request, stream);
    }

    @Override
    public ObjectNode requestBody(ChatRequest request, boolean stream) {
        return body(request, stream);
    }

    /** The Chat Completions body of {@code request} for {@code model}. */
    static ObjectNode body(String model, ChatRequest request, boolean stream) {
        ObjectNode body = ModelJson.object();
        body.put("model", model);
        ArrayNode messages = body.putArray("messages");
        for (ChatMessage m : request.messages()) {
            ObjectNode o = messages.addObject();
            switch (m) {
                case ChatMessage.System s -> o.put("role", "system").put("content", s.text());
                case ChatMessage.User u when u.images().isEmpty() -> o.put("role", "user").put("content", u.text());
                case ChatMessage.User u -> {
                    // with images, content is a list of parts: the text, then each image as an image_url
                    ArrayNode parts = o.put("role", "user").putArray("content");
                    if (!u.text().isEmpty()) {
                        parts.addObject().put("type", "text").put("text", u.text());
                    }
                    for (Image image : u.images()) {
                        String url = switch (image) {
                            case Image.Inline in -> in.dataUrl();
                            case Image.Url at -> at.url().toString();
                        };
                        parts.addObject().put("type", "image_url").putObject("image_url").put("url", url);
                    }
                }
                case ChatMessage.Assistant a -> {
                    o.put("role", "assistant");
                    if (a.text().isEmpty() && !a.toolCalls().isEmpty()) {
                        o.putNull("content");
                    } else {
                        o.put("content", a.text());
                    }
                    if (!a.toolCalls().isEmpty()) {
                        ArrayNode calls = o.putArray("tool_calls");
                        for (ToolCall c : a.toolCalls()) {
                            ObjectNode call = calls.addObject().put("id", c.id()).put("type", "function");
                            call.putObject("function").put("name", c.name()).put("arguments", c.arguments());
                        }
                    }
                }
                case ChatMessage.ToolResult r -> o.put("role", "tool").put("tool_call_id", r.toolCallId())
                        .put("content", r.content());
            }
        }
        if (!request.tools().isEmpty()) {
            ArrayNode tools = body.putArray("tools");
            for (ToolDefinition t : request.tools()) {
                tools.add(t.toJson(ToolFormat.OPENAI));
            }
            ToolChoice choice = request.options().toolChoice();
            switch (choice.mode()) {
                case AUTO -> body.put("tool_choice", "auto");
                case REQUIRED -> body.put("tool_choice", "required");
                case NONE -> body.put("tool_choice", "none");
                case NAMED -> body.putObject("tool_choice").put("type", "function")
                        .putObject("function").put("name", choice.tool().orElseThrow());
            }
            body.put("parallel_tool_calls", request.options().parallelToolCalls());
        }
        request.options().temperature().ifPresent(t -> body.put("temperature", t));
        request.options().maxTokens().ifPresent(t -> body.put("max_tokens", t));
        // OpenAI's format has no reasoning switch or budget; an effort is sent only when one was set, since a model
        // that does not reason refuses the field.
        request.options().effort().ifPresent(e -> body.put("reasoning_effort", e.equals("max") ? "high" : e));
        request.options().frequencyPenalty().ifPresent(p -> body.put("frequency_penalty", p));
        request.options().responseFormat().ifPresent(f -> body.set("response_format", ModelJson.MAPPER.readTree(f)));
        if (stream) {
            body.put("stream", true);
            body.putObject("stream_options").put("include_usage", true);
        }
        return body;
    }

    @Override
    public ChatResponse chat(ChatRequest request) {
        JsonNode json = http.post(endpoint, headers(), body(request, false));
        if (!json.path("choices").isArray() || json.path("choices").isEmpty()) {
            throw new ModelException(http.provider() + " sent an answer without choices");
        }
        JsonNode choice = json.path("choices").path(0);
        JsonNode message = choice.path("message");
        List<ToolCall> calls = new ArrayList<>();
        for (JsonNode c : message.path("tool_calls")) {
            JsonNode f = c.path("function");
            JsonNode args = f.path("arguments");
            calls.add(new ToolCall(c.path("id").asString(""), f.path("name").asString(""),
                    args.isString() ? args.asString() : ModelJson.write(args)));
        }
        return new ChatResponse(new ChatMessage.Assistant(message.path("content").asString(""), calls,
                Reasoning.of(reasoning(message))), usage(json.path("usage")), stopReason(choice.path("finish_reason").asString(""), !calls.isEmpty()));
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        ToolCallAccumulator calls = new ToolCallAccumulator(listener);
        String[] finish = {""};
        boolean[] done = {false};
        ChatResponse.Usage[] usage = {ChatResponse.Usage.NONE};
        http.stream(endpoint, headers(), body(request, true), event -> {
            if (event.data().equals("[DONE]")) {
                done[0] = true;
                return;
            }
            JsonNode chunk = ModelJson.MAPPER.readTree(event.data());
            if (chunk.path("usage").isObject()) {
                usage[0] = usage(chunk.path("usage"));
            }
            for (JsonNode choice : chunk.path("choices")) {
                JsonNode delta = choice.path("delta");
                String thought = reasoning(delta);
                if (!thought.isEmpty()) {
                    reasoning.append(thought);
                    listener.onReasoning(thought);
                }
                String piece = delta.path("content").asString("");
                if (!piece.isEmpty()) {
                    text.append(piece);
                    listener.onText(piece);
                }
                for (JsonNode c : delta.path("tool_calls")) {
                    JsonNode f = c.path("function");
                    calls.add(c.path("index").asInt(0), c.path("id").asString(null), f.path("name").asString(null),
                            f.path("arguments").asString(null));
                }
                String reason = choice.path("finish_reason").asString("");
                if (!reason.isEmpty()) {
                    finish[0] = reason;
                }
            }
        });
        if (!done[0] && finish[0].isEmpty()) {
            throw new ModelException(http.provider() + " ended its stream before the answer was complete (no finish_reason "
                    + "and no [DONE]); nothing of the partial answer is kept");
        }
        List<ToolCall> complete = calls.calls();
        complete.forEach(listener::onToolCall);
        return new ChatResponse(new ChatMessage.Assistant(text.toString(), complete, Reasoning.of(reasoning.toString())),
                usage[0], stopReason(finish[0], !complete.isEmpty()));
    }

    /**
     * The reasoning of a message or a stream delta. Servers name it differently: {@code reasoning_content} (DeepSeek,
     * vLLM), {@code reasoning} (Ollama, OpenRouter). It is not sent back: OpenAI's format has no field for it in a
     * request, and DeepSeek refuses one.
     */
    private static String reasoning(JsonNode message) {
        return message.path("reasoning_content").asString(message.path("reasoning").asString(""));
    }

    private static ChatResponse.Usage usage(JsonNode u) {
        return new ChatResponse.Usage(u.path("prompt_tokens").asInt(0), u.path("completion_tokens").asInt(0));
    }

    private static ChatResponse.StopReason stopReason(String reason, boolean hasCalls) {
        return switch (reason) {
            case "stop" -> hasCalls ? ChatResponse.StopReason.TOOL_CALLS : ChatResponse.StopReason.END_TURN;
            case "tool_calls", "function_call" -> ChatResponse.StopReason.TOOL_CALLS;
            case "length" -> ChatResponse.StopReason.MAX_TOKENS;
            case "content_filter" -> ChatResponse.StopReason.CONTENT_FILTER;
            default -> hasCalls ? ChatResponse.StopReason.TOOL_CALLS : ChatResponse.StopReason.OTHER;
        };
    }
}

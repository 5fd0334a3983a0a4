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

/**
 * Anthropic Messages: the system prompt as a top-level field, {@code tool_use} and
 * {@code tool_result} content blocks, and the results of one turn's tool calls grouped into one user
 * message.
 */
final class AnthropicChatModel implements ChatModel {
    static final String VERSION = "2023-06-01";
    /** Anthropic requires max_tokens; this is used when the request sets none. */
    static final int DEFAULT_MAX_TOKENS = 4_096;
    /** The smallest thinking budget Anthropic takes. */
    static final int MIN_THINKING_BUDGET = 1_024;

    private final ModelSpec spec;
    private final ModelHttp http;
    private final URI endpoint;

    AnthropicChatModel(ModelSpec spec) {
        this.spec = spec;
        this.http = new ModelHttp("anthropic", spec.timeout(), spec.retry());
        this.endpoint = URI.create(spec.baseUrl().toString().replaceAll("/+$", "") + "/v1/messages");
    }

    @Override
    public String name() {
        return "anthropic:" + spec.model();
    }

    /** Every Claude since Claude 3 ({@link Vision#anthropic}). */
    @Override
    public boolean supportsImages() {
        return Vision.anthropic(spec.model());
    }

    /** Anthropic fetches an image by address itself ({@code "source": {"type": "url"}}). */
    @Override
    public boolean supportsImageUrls() {
        return supportsImages();
    }

    private Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-api-key", spec.apiKey().orElse(""));
        h.put("anthropic-version", VERSION);
        return h;
    }

    @Override
    public ObjectNode requestBody(ChatRequest request, boolean stream) {
        return body(request, stream);
    }

    ObjectNode body(ChatRequest request, boolean stream) {
        Vision.check(this, request);
        ObjectNode body = ModelJson.object();
        body.put("model", spec.model());
        body.put("max_tokens", request.options().maxTokens().orElse(DEFAULT_MAX_TOKENS));
        ChatOptions options = request.options();
        boolean thinking = options.reasoning().orElse(false);
        StringBuilder system = new StringBuilder();
        ArrayNode messages = ModelJson.MAPPER.createArrayNode();
        ArrayNode pendingResults = null;
        for (ChatMessage m : request.messages()) {
            if (!(m instanceof ChatMessage.ToolResult)) {
                pendingResults = null;
            }
            switch (m) {
                case ChatMessage.System s -> {
                    if (!system.isEmpty()) {
                        system.append("\n\n");
                    }
                    system.append(s.text());
                }
                case ChatMessage.User u -> {
                    ArrayNode content = messages.addObject().put("role", "user").putArray("content");
                    if (!u.text().isEmpty() || u.images().isEmpty()) {
                        content.addObject().put("type", "text").put("text", u.text());
                    }
                    for (Image image : u.images()) {
                        ObjectNode source = content.addObject().put("type", "image").putObject("source");
                        switch (image) {
                            case Image.Inline in -> source.put("type", "base64").put("media_type", in.mediaType())
                                    .put("data", in.base64());
                            case Image.Url at -> source.put("type", "url").put("url", at.url().toString());
                        }
                    }
                }
                case ChatMessage.Assistant a -> {
                    ObjectNode o = messages.addObject().put("role", "assistant");
                    ArrayNode content = o.putArray("content");
                    if (thinking) {
                        thinkingBlocks(content, a.reasoning());
                    }
                    if (!a.text().isEmpty()) {
                        content.addObject().put("type", "text").put("text", a.text());
                    }
                    for (ToolCall c : a.toolCalls()) {
                        ObjectNode input = ModelJson.argumentsObject(c.arguments());
                        if (input == null) {
                            // The model sent arguments that are not an object; keep them so the history stays truthful.
                            input = ModelJson.object().put("raw_arguments", c.arguments());
                        }
                        content.addObject().put("type", "tool_use").put("id", c.id()).put("name", c.name()).set("input", input);
                    }
                }
                case ChatMessage.ToolResult r -> {
                    if (pendingResults == null) {
                        pendingResults = messages.addObject().put("role", "user").putArray("content");
                    }
                    ObjectNode block = pendingResults.addObject().put("type", "tool_result").put("tool_use_id", r.toolCallId())
                            .put("content", r.content());
                    if (r.isError()) {
                        block.put("is_error", true);
                    }
                }
            }
        }
        if (!system.isEmpty()) {
            body.put("system", system.toString());
        }
        body.set("messages", messages);
        if (!request.tools().isEmpty()) {
            ArrayNode tools = body.putArray("tools");
            for (ToolDefinition t : request.tools()) {
                tools.add(t.toJson(ToolFormat.ANTHROPIC));
            }
            ToolChoice choice = request.options().toolChoice();
            ObjectNode tc = body.putObject("tool_choice");
            switch (choice.mode()) {
                case AUTO -> tc.put("type", "auto");
                case REQUIRED -> tc.put("type", "any");
                case NONE -> tc.put("type", "none");
                case NAMED -> tc.put("type", "tool").put("name", choice.tool().orElseThrow());
            }
            if (!request.options().parallelToolCalls() && choice.mode() != ToolChoice.Mode.NONE) {
                tc.put("disable_parallel_tool_use", true);
            }
        }
        if (thinking) {
            // Anthropic's budget is at least 1024 tokens and below max_tokens, and thinking takes no temperature.
            int budget = Math.max(MIN_THINKING_BUDGET, options.reasoningBudgetTokens().orElse(MIN_THINKING_BUDGET));
            body.putObject("thinking").put("type", "enabled").put("budget_tokens", budget);
            if (body.path("max_tokens").asInt() <= budget) {
                body.put("max_tokens", budget + DEFAULT_MAX_TOKENS);
            }
        } else {
            options.temperature().ifPresent(t -> body.put("temperature", Math.min(1.0, t)));
        }
        options.effort().filter(e -> List.of("low", "medium", "high", "max").contains(e))
                .ifPresent(e -> body.putObject("output_config").put("effort", e));
        if (stream) {
            body.put("stream", true);
        }
        return body;
    }

    /**
     * An earlier answer's thinking, sent back as Anthropic needs it when thinking is on (with tool use, the last
     * assistant message must start with its thinking): the signed {@code thinking} block, then each
     * {@code redacted_thinking} block as it came. Reasoning without a signature (from another provider, or an
     * imported file) cannot be sent: Anthropic refuses an unsigned thinking block.
     */
    private static void thinkingBlocks(ArrayNode content, Reasoning reasoning) {
        if (!reasoning.signature().isEmpty()) {
            content.addObject().put("type", "thinking").put("thinking", reasoning.text()).put("signature", reasoning.signature());
        }
        for (String data : reasoning.redacted()) {
            content.addObject().put("type", "redacted_thinking").put("data", data);
        }
    }

    @Override
    public ChatResponse chat(ChatRequest request) {
        JsonNode json = http.post(endpoint, headers(), body(request, false));
        if (!json.path("content").isArray()) {
            throw new ModelException(http.provider() + " sent an answer without content");
        }
        StringBuilder text = new StringBuilder();
        List<ToolCall> calls = new ArrayList<>();
        Thinking thinking = new Thinking();
        for (JsonNode block : json.path("content")) {
            switch (block.path("type").asString("")) {
                case "text" -> text.append(block.path("text").asString(""));
                case "thinking" -> {
                    thinking.text.append(block.path("thinking").asString(""));
                    thinking.signature = block.path("signature").asString(thinking.signature);
                }
                case "redacted_thinking" -> thinking.redacted.add(block.path("data").asString(""));
                case "tool_use" -> calls.add(new ToolCall(block.path("id").asString(""), block.path("name").asString(""),
                        ModelJson.write(block.path("input"))));
                default -> { }
            }
        }
        JsonNode u = json.path("usage");
        return new ChatResponse(new ChatMessage.Assistant(text.toString(), calls, thinking.reasoning()),
                new ChatResponse.Usage(u.path("input_tokens").asInt(0), u.path("output_tokens").asInt(0)),
                stopReason(json.path("stop_reason").asString("")));
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
        StringBuilder text = new StringBuilder();
        Thinking thinking = new Thinking();
        ToolCallAccumulator calls = new ToolCallAccumulator(listener);
        String[] stop = {""};
        boolean[] done = {false};
        int[] tokens = {0, 0};
        http.stream(endpoint, headers(), body(request, true), event -> {
            JsonNode e = ModelJson.MAPPER.readTree(event.data());
            switch (e.path("type").asString(event.event())) {
                case "message_start" -> {
                    JsonNode u = e.path("message").path("usage");
                    tokens[0] = u.path("input_tokens").asInt(0);
                    tokens[1] = u.path("output_tokens").asInt(0);
                }
                case "content_block_start" -> {
                    JsonNode block = e.path("content_block");
                    switch (block.path("type").asString("")) {
                        case "tool_use" -> calls.add(e.path("index").asInt(), block.path("id").asString(""),
                                block.path("name").asString(""), null);
                        case "redacted_thinking" -> thinking.redacted.add(block.path("data").asString(""));
                        default -> { }
                    }
                }
                case "content_block_delta" -> {
                    JsonNode delta = e.path("delta");
                    switch (delta.path("type").asString("")) {
                        case "text_delta" -> {
                            String piece = delta.path("text").asString("");
                            text.append(piece);
                            listener.onText(piece);
                        }
                        case "thinking_delta" -> {
                            String piece = delta.path("thinking").asString("");
                            thinking.text.append(piece);
                            listener.onReasoning(piece);
                        }
                        case "signature_delta" -> thinking.signature += delta.path("signature").asString("");
                        case "input_json_delta" -> calls.add(e.path("index").asInt(), null, null,
                                delta.path("partial_json").asString(""));
                        default -> { }
                    }
                }
                case "message_delta" -> {
                    stop[0] = e.path("delta").path("stop_reason").asString(stop[0]);
                    tokens[1] = e.path("usage").path("output_tokens").asInt(tokens[1]);
                }
                case "message_stop" -> done[0] = true;
                case "error" -> throw new ModelException("anthropic reported an error mid-stream: "
                        + e.path("error").path("message").asString(event.data()));
                default -> { }
            }
        });
        if (!done[0] && stop[0].isEmpty()) {
            throw new ModelException(http.provider() + " ended its stream before the answer was complete (no stop_reason "
                    + "and no message_stop); nothing of the partial answer is kept");
        }
        List<ToolCall> complete = calls.calls();
        complete.forEach(listener::onToolCall);
        return new ChatResponse(new ChatMessage.Assistant(text.toString(), complete, thinking.reasoning()),
                new ChatResponse.Usage(tokens[0], tokens[1]), stopReason(stop[0]));
    }

    /** The thinking of one answer as it is read: its text, its signature, its redacted blocks. */
    private static final class Thinking {
        final StringBuilder text = new StringBuilder();
        String signature = "";
        final List<String> redacted = new ArrayList<>();

        Reasoning reasoning() {
            return new Reasoning(text.toString(), signature, redacted);
        }
    }

    private static ChatResponse.StopReason stopReason(String reason) {
        return switch (reason) {
            case "end_turn", "stop_sequence" -> ChatResponse.StopReason.END_TURN;
            case "tool_use" -> ChatResponse.StopReason.TOOL_CALLS;
            case "max_tokens" -> ChatResponse.StopReason.MAX_TOKENS;
            case "refusal" -> ChatResponse.StopReason.CONTENT_FILTER;
            default -> ChatResponse.StopReason.OTHER;
        };
    }
}

package dev.engram.framework.model;

import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolFormat;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Gemini generateContent: {@code functionCall} and {@code functionResponse} parts, the system prompt as {@code systemInstruction}. */
final class GeminiChatModel implements ChatModel {
    private final ModelSpec spec;
    private final ModelHttp http;
    private final String base;

    GeminiChatModel(ModelSpec spec) {
        this.spec = spec;
        this.http = new ModelHttp("gemini", spec.timeout(), spec.retry());
        this.base = spec.baseUrl().toString().replaceAll("/+$", "") + "/v1beta/models/"
                + URLEncoder.encode(spec.model(), StandardCharsets.UTF_8);
    }

    @Override
    public String name() {
        return "gemini:" + spec.model();
    }

    /** Every Gemini but the text-only 1.0 Pro ({@link Vision#gemini}); images go as data only ({@code inlineData}). */
    @Override
    public boolean supportsImages() {
        return Vision.gemini(spec.model());
    }

    private Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-goog-api-key", spec.apiKey().orElse(""));
        return h;
    }

    /** Gemini's body is the same streamed or not (the address differs). */
    @Override
    public ObjectNode requestBody(ChatRequest request, boolean stream) {
        return body(request);
    }

    ObjectNode body(ChatRequest request) {
        Vision.check(this, request);
        ObjectNode body = ModelJson.object();
        ArrayNode contents = body.putArray("contents");
        StringBuilder system = new StringBuilder();
        ArrayNode pendingResponses = null;
        for (ChatMessage m : request.messages()) {
            if (!(m instanceof ChatMessage.ToolResult)) {
                pendingResponses = null;
            }
            switch (m) {
                case ChatMessage.System s -> {
                    if (!system.isEmpty()) {
                        system.append("\n\n");
                    }
                    system.append(s.text());
                }
                case ChatMessage.User u -> {
                    ArrayNode parts = contents.addObject().put("role", "user").putArray("parts");
                    if (!u.text().isEmpty() || u.images().isEmpty()) {
                        parts.addObject().put("text", u.text());
                    }
                    for (Image image : u.images()) {
                        // Vision.check refused images by address: Gemini reads only its own file URIs
                        Image.Inline in = (Image.Inline) image;
                        parts.addObject().putObject("inlineData").put("mimeType", in.mediaType()).put("data", in.base64());
                    }
                }
                case ChatMessage.Assistant a -> {
                    ArrayNode parts = contents.addObject().put("role", "model").putArray("parts");
                    if (!a.text().isEmpty()) {
                        parts.addObject().put("text", a.text());
                    }
                    for (ToolCall c : a.toolCalls()) {
                        ObjectNode args = ModelJson.argumentsObject(c.arguments());
                        ObjectNode call = parts.addObject().putObject("functionCall");
                        call.put("name", c.name());
                        call.set("args", args == null ? ModelJson.object().put("raw_arguments", c.arguments()) : args);
                    }
                }
                case ChatMessage.ToolResult r -> {
                    if (pendingResponses == null) {
                        pendingResponses = contents.addObject().put("role", "user").putArray("parts");
                    }
                    ObjectNode response = ModelJson.object();
                    ObjectNode parsed = ModelJson.argumentsObject(r.content());
                    if (r.isError()) {
                        response.put("error", r.content());
                    } else if (parsed != null && !r.content().isBlank()) {
                        response = parsed;
                    } else {
                        response.put("result", r.content());
                    }
                    ObjectNode fr = pendingResponses.addObject().putObject("functionResponse");
                    fr.put("name", r.toolName());
                    fr.set("response", response);
                }
            }
        }
        if (!system.isEmpty()) {
            body.putObject("systemInstruction").putArray("parts").addObject().put("text", system.toString());
        }
        if (!request.tools().isEmpty()) {
            ArrayNode declarations = body.putArray("tools").addObject().putArray("functionDeclarations");
            for (ToolDefinition t : request.tools()) {
                declarations.add(t.toJson(ToolFormat.GEMINI));
            }
            ObjectNode config = body.putObject("toolConfig").putObject("functionCallingConfig");
            ToolChoice choice = request.options().toolChoice();
            switch (choice.mode()) {
                case AUTO -> config.put("mode", "AUTO");
                case REQUIRED -> config.put("mode", "ANY");
                case NONE -> config.put("mode", "NONE");
                case NAMED -> {
                    config.put("mode", "ANY");
                    config.putArray("allowedFunctionNames").add(choice.tool().orElseThrow());
                }
            }
        }
        ObjectNode generation = ModelJson.object();
        request.options().temperature().ifPresent(t -> generation.put("temperature", t));
        request.options().maxTokens().ifPresent(t -> generation.put("maxOutputTokens", t));
        request.options().frequencyPenalty().ifPresent(p -> generation.put("frequencyPenalty", p));
        request.options().reasoning().ifPresent(on -> {
            ObjectNode thinking = generation.putObject("thinkingConfig").put("includeThoughts", on);
            thinking.put("thinkingBudget", on ? request.options().reasoningBudgetTokens().orElse(-1) : 0);
        });
        request.options().responseFormat().map(ModelJson.MAPPER::readTree).ifPresent(f -> {
            String type = f.path("type").asString("text");
            if (!type.equals("text")) {
                generation.put("responseMimeType", "application/json");
            }
            if (f.path("json_schema").path("schema").isObject()) {
                generation.set("responseJsonSchema", f.path("json_schema").path("schema"));
            }
        });
        if (!generation.isEmpty()) {
            body.set("generationConfig", generation);
        }
        return body;
    }

    @Override
    public ChatResponse chat(ChatRequest request) {
        JsonNode json = http.post(URI.create(base + ":generateContent"), headers(), body(request));
        StringBuilder text = new StringBuilder();
        StringBuilder thoughts = new StringBuilder();
        List<ToolCall> calls = new ArrayList<>();
        String[] finish = {""};
        ChatResponse.Usage usage = collect(json, text, thoughts, calls, finish, StreamListener.NONE);
        return new ChatResponse(new ChatMessage.Assistant(text.toString(), calls, Reasoning.of(thoughts.toString())), usage,
                stopReason(finish[0], !calls.isEmpty()));
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
        StringBuilder text = new StringBuilder();
        StringBuilder thoughts = new StringBuilder();
        List<ToolCall> calls = new ArrayList<>();
        String[] finish = {""};
        ChatResponse.Usage[] usage = {ChatResponse.Usage.NONE};
        http.stream(URI.create(base + ":streamGenerateContent?alt=sse"), headers(), body(request), event -> {
            ChatResponse.Usage u = collect(ModelJson.MAPPER.readTree(event.data()), text, thoughts, calls, finish, listener);
            if (u.inputTokens() > 0 || u.outputTokens() > 0) {
                usage[0] = u;
            }
        });
        calls.forEach(listener::onToolCall);
        return new ChatResponse(new ChatMessage.Assistant(text.toString(), calls, Reasoning.of(thoughts.toString())), usage[0],
                stopReason(finish[0], !calls.isEmpty()));
    }

    /**
     * Gathers text, thought summaries ({@code "thought": true} parts) and function calls of one response (or stream
     * chunk); returns its usage.
     */
    private static ChatResponse.Usage collect(JsonNode json, StringBuilder text, StringBuilder thoughts, List<ToolCall> calls,
            String[] finish, StreamListener listener) {
        JsonNode candidate = json.path("candidates").path(0);
        for (JsonNode part : candidate.path("content").path("parts")) {
            if (part.has("text") && part.path("thought").asBoolean(false)) {
                String piece = part.path("text").asString("");
                thoughts.append(piece);
                listener.onReasoning(piece);
            } else if (part.has("text")) {
                String piece = part.path("text").asString("");
                text.append(piece);
                listener.onText(piece);
            }
            if (part.has("functionCall")) {
                JsonNode call = part.path("functionCall");
                String id = call.path("id").asString("");
                // Gemini sends each call whole, in one part: it is one fragment.
                ToolCall complete = new ToolCall(id.isEmpty() ? "call_" + calls.size() : id, call.path("name").asString(""),
                        ModelJson.write(call.path("args").isMissingNode() ? ModelJson.object() : call.path("args")));
                listener.onToolCallDelta(calls.size(), complete.id(), complete.name(), complete.arguments());
                calls.add(complete);
            }
        }
        String reason = candidate.path("finishReason").asString("");
        if (!reason.isEmpty()) {
            finish[0] = reason;
        }
        JsonNode u = json.path("usageMetadata");
        return new ChatResponse.Usage(u.path("promptTokenCount").asInt(0), u.path("candidatesTokenCount").asInt(0));
    }

    private static ChatResponse.StopReason stopReason(String reason, boolean hasCalls) {
        if (hasCalls) {
            return ChatResponse.StopReason.TOOL_CALLS;
        }
        return switch (reason) {
            case "STOP" -> ChatResponse.StopReason.END_TURN;
            case "MAX_TOKENS" -> ChatResponse.StopReason.MAX_TOKENS;
            case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII" -> ChatResponse.StopReason.CONTENT_FILTER;
            default -> ChatResponse.StopReason.OTHER;
        };
    }
}

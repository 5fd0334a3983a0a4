package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.TokenCounter;
import dev.engram.framework.ToolDefinition;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * What a message request asks, decoded from Letta's {@code LettaRequest} body: a message for the agent or the answer to
 * the call its turn waits on ({@link Input}), how the answer shows messages ({@link TurnViews.View}) and whether and
 * how it streams. Anything malformed is a 422 naming the field, before any turn starts.
 *
 * @param input        the message or the approval's answer
 * @param view         the display options ({@code use_assistant_message}, {@code include_return_message_types})
 * @param streaming    whether the answer is Server-Sent Events
 * @param streamTokens whether a stream sends fragments as the model produces them ({@code stream_tokens})
 * @param includePings whether a stream sends pings while the turn runs ({@code include_pings})
 */
record TurnRequest(Input input, TurnViews.View view, boolean streaming, boolean streamTokens, boolean includePings) {
    /**
     * The request a message route reads: its input, checked against the agent's context window, its display
     * options, and (on {@code /messages} with {@code streaming}, or on {@code /messages/stream}) how it streams.
     *
     * @param streamRoute whether the route always streams ({@code /messages/stream}), which reads no {@code streaming}
     */
    static TurnRequest of(Agent agent, Body body, int maxChars, boolean streamRoute) {
        return of(agent, body, maxChars, streamRoute, false);
    }

    /**
     * {@link #of(Agent, Body, int, boolean)} where {@code streaming} defaults to {@code streamingByDefault}: Letta's
     * conversation messages stream unless the body says {@code "streaming": false}.
     */
    static TurnRequest of(Agent agent, Body body, int maxChars, boolean streamRoute, boolean streamingByDefault) {
        Input input = input(body, maxChars);
        List<ToolDefinition> clientTools = ClientToolSchemas.decode(body);
        if (input instanceof Input.Message m && !clientTools.isEmpty()) {
            input = new Input.Message(m.text(), clientTools);
        }
        fitsWindow(agent, input, body);
        TurnViews.View view = TurnViews.view(body);
        boolean streaming = streamRoute || body.bool("streaming").orElse(streamingByDefault);
        return new TurnRequest(input, view, streaming, streaming && body.bool("stream_tokens").orElse(false),
                streaming && body.bool("include_pings").orElse(false));
    }

    /** What a request asks: a message for the agent, or the answer to the call its turn waits on. */
    sealed interface Input {
        /** A message, with the tools its client runs itself ({@code client_tools}, see {@link ClientToolSchemas}). */
        record Message(String text, List<ToolDefinition> clientTools) implements Input {
            Message(String text) {
                this(text, List.of());
            }
        }

        /** The answers to the calls the turn waits on ({@link ApprovalAnswers}); the older form names its request. */
        record Approval(List<ApprovalAnswers.Entry> entries, String requestId) implements Input {
        }
    }

    /**
     * What a request body asks; a 422 naming the field for anything malformed, and for a message longer than
     * {@code maxChars} (the store's {@code MemoryLimits.maxTextChars}, which would refuse it mid-turn).
     */
    static Input input(Body body, int maxChars) {
        Optional<List<Body>> messages = body.objects("messages");
        Optional<JsonNode> input = body.raw("input");
        if (messages.isPresent() == input.isPresent()) {
            throw body.problem("value_error", "Send either 'messages' or 'input' (exactly one)", messages.isPresent() ? "input" : "messages");
        }
        if (input.isPresent()) {
            String text = input.get().isString() ? input.get().asString() : texts(body, input.get(), "input");
            return message(body, text, "input", maxChars);
        }
        List<Body> list = messages.get();
        if (list.isEmpty()) {
            throw body.problem("too_short", "List should have at least 1 item", "messages");
        }
        String first = list.getFirst().string("type").orElse("message");
        if (first.equals("approval") || first.equals("tool_return")) {
            if (list.size() > 1) {
                throw body.problem("value_error", "An approval is sent alone", "messages");
            }
            return ApprovalAnswers.decode(list.getFirst());
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < list.size(); i++) {
            Body m = list.get(i);
            String type = m.string("type").orElse("message");
            if (!type.equals("message")) {
                throw m.problem("literal_error", "Input should be 'message' or 'approval' (an approval is sent alone)", "type");
            }
            String role = m.requiredString("role");
            if (!role.equals("user")) {
                throw m.problem("literal_error", "Engram's agents take user messages: role should be 'user', not '" + role + "'", "role");
            }
            JsonNode content = m.raw("content").orElseThrow(() -> m.problem("missing", "Field required", "content"));
            text.append(text.isEmpty() ? "" : "\n\n").append(content.isString() ? content.asString() : texts(m, content, "content"));
        }
        return message(body, text.toString(), "messages", maxChars);
    }

    private static Input message(Body body, String text, String field, int maxChars) {
        if (text.isBlank()) {
            throw body.problem("value_error", "The message is empty", field);
        }
        if (text.length() > maxChars) {
            throw body.problem("string_too_long", "The message has " + text.length() + " characters; this server takes at most "
                    + maxChars + " in one message (the store's MemoryLimits.maxTextChars): split it, or send a summary", field);
        }
        return new Input.Message(text);
    }

    /**
     * A 422 for a message that alone takes more tokens than the agent's context window (the turn could only fail:
     * nothing it could drop from the window would make room). Counted as the runtime counts by default
     * ({@link TokenCounter#forModel}); a text with no more characters than the window has tokens is never counted.
     */
    static void fitsWindow(Agent agent, Input input, Body body) {
        if (!(input instanceof Input.Message m)) {
            return;
        }
        int window = agent.definition().contextWindowTokens();
        if (m.text().length() <= window) {
            return;
        }
        int tokens = TokenCounter.forModel(TokenCounter.modelName(agent.definition().model())).count(m.text());
        if (tokens > window) {
            throw body.problem("value_error", "The message is about " + tokens + " tokens, more than agent '" + agent.id()
                    + "''s whole context window of " + window + " tokens: split it, send a summary, or raise the agent's "
                    + "context_window_limit (PATCH /v1/agents/" + agent.id() + ")", body.has("input") ? "input" : "messages");
        }
    }

    /** The text of Letta's content parts ({@code [{"type": "text", "text": ...}]}); other kinds are refused. */
    private static String texts(Body body, JsonNode parts, String field) {
        if (!parts.isArray()) {
            throw body.problem("string_type", "Input should be a valid string or a list of content parts", field);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            Body part = Body.of(parts.get(i), body.location(field, String.valueOf(i)));
            String type = part.requiredString("type");
            if (!type.equals("text")) {
                throw part.problem("literal_error", "Only text content is supported, not '" + type + "'", "type");
            }
            text.append(text.isEmpty() ? "" : "\n").append(part.requiredString("text"));
        }
        return text.toString();
    }
}

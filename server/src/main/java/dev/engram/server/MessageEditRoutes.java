package dev.engram.server;

import static io.helidon.http.Method.PATCH;

import dev.engram.agents.Agent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageRole;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.ToolOutcome;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code PATCH /v1/agents/{agent_id}/messages/{message_id}}: corrects what a stored message of the agent says, with
 * Letta's update union ({@code system_message}, {@code user_message}, {@code reasoning_message},
 * {@code assistant_message}; without a {@code message_type}, the one the stored message is). The message keeps its id
 * and place, and recall search finds the new text. An {@code assistant_message} of a {@code send_message} call edits
 * that call's message; a {@code reasoning_message} edits the model's reasoning (its provider signature is dropped, as
 * it signed the old text) or, for a model without reasoning, the assistant's words beside its tool calls. The answer is
 * the Letta message of that type as it is now.
 */
final class MessageEditRoutes {
    private final Api api;

    MessageEditRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table().add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/messages/{message_id}", this::edit)).list();
    }

    private void edit(Agent agent, ServerRequest req, ServerResponse res) {
        edit(api, agent, req, res);
    }

    /**
     * Corrects the agent's stored message that the path's {@code message_id} names (also for a group's message, which
     * is one of its member agents' own): a 404 when the agent has no such message.
     */
    static void edit(Api api, Agent agent, ServerRequest req, ServerResponse res) {
        new MessageEditRoutes(api).correct(agent, req, res);
    }

    private void correct(Agent agent, ServerRequest req, ServerResponse res) {
        String messageId = req.path().pathParameters().get("message_id");
        long id = Ids.message(messageId, "Message");
        ConversationMessage m = api.store.messages().get(agent.scope(), id).orElseThrow(() -> ApiException.notFound(
                "Message '" + messageId + "' not found for agent '" + agent.id() + "'."));
        Body body = Api.body(req);
        String type = body.string("message_type").orElseGet(() -> body.has("reasoning") ? "reasoning_message" : switch (m.role()) {
            case USER -> "user_message";
            case SYSTEM -> "system_message";
            case ASSISTANT, TOOL -> "assistant_message";
        });
        ConversationMessage edited = switch (type) {
            case "user_message" -> {
                role(body, m, MessageRole.USER, type);
                yield change(agent, body, m, text(body, "content"), m.toolCalls(), m.reasoning());
            }
            case "system_message" -> {
                role(body, m, MessageRole.SYSTEM, type);
                yield change(agent, body, m, body.requiredString("content"), m.toolCalls(), m.reasoning());
            }
            case "assistant_message" -> assistant(agent, body, m, text(body, "content"));
            case "reasoning_message" -> reasoning(agent, body, m, body.requiredString("reasoning"));
            default -> throw body.problem("literal_error", "Input should be 'system_message', 'user_message', "
                    + "'reasoning_message' or 'assistant_message'", "message_type");
        };
        Api.json(res, view(agent, edited, type));
    }

    private ConversationMessage assistant(Agent agent, Body body, ConversationMessage m, String text) {
        role(body, m, MessageRole.ASSISTANT, "assistant_message");
        if (m.toolCalls().isEmpty()) {
            return change(agent, body, m, text, m.toolCalls(), m.reasoning());
        }
        List<MessageToolCall> calls = new ArrayList<>(m.toolCalls());
        for (int i = 0; i < calls.size(); i++) {
            JsonNode args = parse(calls.get(i).arguments());
            if (args instanceof ObjectNode o && o.path(LettaViews.MESSAGE_ARGUMENT).isString()) {
                o.put(LettaViews.MESSAGE_ARGUMENT, text);
                calls.set(i, new MessageToolCall(calls.get(i).id(), calls.get(i).name(), Body.JSON.writeValueAsString(o)));
                return change(agent, body, m, m.content(), calls, m.reasoning());
            }
        }
        throw ApiException.badRequest("Message '" + Ids.message(m.id()) + "' has no assistant_message: its tool calls send "
                + "no message to the user; edit its reasoning_message, or another message.");
    }

    private ConversationMessage reasoning(Agent agent, Body body, ConversationMessage m, String text) {
        role(body, m, MessageRole.ASSISTANT, "reasoning_message");
        if (!m.reasoning().text().isEmpty()) {
            return change(agent, body, m, m.content(), m.toolCalls(), new MessageReasoning(text, "", m.reasoning().redacted()));
        }
        if (!m.content().isBlank() && !m.toolCalls().isEmpty()) {
            return change(agent, body, m, text, m.toolCalls(), m.reasoning());
        }
        throw ApiException.badRequest("Message '" + Ids.message(m.id()) + "' has no reasoning_message to edit.");
    }

    private static void role(Body body, ConversationMessage m, MessageRole role, String type) {
        if (m.role() != role) {
            throw ApiException.badRequest("Message '" + Ids.message(m.id()) + "' is a " + m.role().name().toLowerCase(Locale.ROOT)
                    + " message; it has no " + type + " (give the message_type it shows as).");
        }
    }

    /** A content: a string, or Letta's text parts joined (an image part is refused: an edit changes text only). */
    private static String text(Body body, String field) {
        JsonNode content = body.raw(field).orElseThrow(() -> body.problem("missing", "Field required", field));
        if (content.isString()) {
            return content.asString();
        }
        if (!content.isArray()) {
            throw body.problem("string_type", "Input should be a string or a list of text parts", field);
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            if (!part.path("type").asString("text").equals("text") || !part.path("text").isString()) {
                throw body.problem("value_error", "An edit changes a message's text: each part is {\"type\": \"text\", "
                        + "\"text\": ...}", field, Integer.toString(i));
            }
            out.append(out.isEmpty() ? "" : "\n\n").append(part.path("text").asString());
        }
        return out.toString();
    }

    private ConversationMessage change(Agent agent, Body body, ConversationMessage m, String content,
            List<MessageToolCall> calls, MessageReasoning reasoning) {
        if (api.turns.running(agent.scope()).isPresent()) {
            throw ApiException.conflict("Agent '" + agent.id() + "' is working on a message; cancel it or wait, then edit.");
        }
        if (content.isBlank() && calls.isEmpty() && m.role() != MessageRole.ASSISTANT) {
            throw body.problem("value_error", "A message's new text must not be empty", "content");
        }
        return api.store.messages().edit(agent.scope(), m.id(), content, calls, reasoning);
    }

    /** The Letta message of {@code type} that the stored message shows as now (its calls' outcomes read from their results). */
    private ObjectNode view(Agent agent, ConversationMessage m, String type) {
        Map<String, ToolOutcome> outcomes = new HashMap<>();
        if (!m.toolCalls().isEmpty()) {
            for (ConversationMessage later : api.store.messages().list(agent.scope(), MessageQuery.all()
                    .withSession(m.sessionId()).withIdRange(m.id(), Long.MAX_VALUE).withLimit(m.toolCalls().size() + 50))) {
                if (later.role() == MessageRole.TOOL) {
                    later.toolCallId().ifPresent(c -> outcomes.put(c, later.toolOutcome().orElse(ToolOutcome.OK)));
                }
            }
        }
        return LettaViews.messages(List.of(m), true, c -> Optional.empty(), c -> Optional.ofNullable(outcomes.get(c))).stream()
                .filter(v -> v.path("message_type").asString().equals(type)).findFirst()
                .orElseGet(() -> LettaViews.messages(List.of(m), true).getFirst());
    }

    private static JsonNode parse(String json) {
        try {
            return Body.JSON.readTree(json);
        } catch (RuntimeException e) {
            return Body.JSON.createObjectNode();
        }
    }
}

package dev.engram.server;

import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.agents.ClientTools;
import dev.engram.framework.model.ChatRequest;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@code POST .../messages/preview-raw-payload} of an agent and of a conversation: the exact body the agent's model
 * adapter would post to its provider for the first step of this message (OpenAI's, Anthropic's or Gemini's format,
 * {@link dev.engram.framework.model.ChatModel#requestBody}), built as a turn builds it, with nothing stored and no model
 * called. The request is the one the message route takes; {@code streaming} previews the streamed call's body.
 */
final class PreviewRoutes {
    private final Api api;

    PreviewRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .add(Route.agent(api, POST, "/v1/agents/{agent_id}/messages/preview-raw-payload", this::agent))
                .add(Route.caller(POST, "/v1/conversations/{conversation_id}/messages/preview-raw-payload", this::conversation))
                .list();
    }

    private void agent(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        preview(agent, ConversationRoutes.DEFAULT, body, TurnRequest.of(agent, body, api.messageLimits(), false), res);
    }

    private void conversation(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        ConversationRoutes.Target t = new ConversationRoutes(api).target(caller, req, body.string("agent_id"));
        preview(t.agent(), t.session(), body, TurnRequest.of(t.agent(), body, api.messageLimits(), false, true), res);
    }

    private void preview(Agent agent, String session, Body body, TurnRequest request, ServerResponse res) {
        for (String field : List.of("override_model", "override_system")) {
            if (body.raw(field).isPresent()) {
                throw body.problem("value_error", "A turn on this server uses the agent's own model and system prompt, so "
                        + "the preview does too; leave " + field + " out (change the agent with PATCH /v1/agents/"
                        + agent.id() + ")", field);
            }
        }
        if (!(request.input() instanceof TurnRequest.Input.Message m)) {
            throw body.problem("value_error", "A preview shows the request of a new message; an approval answers a call the "
                    + "model already made and starts no new request of its own", "messages");
        }
        // The client's tools take part in the request; nobody is asked to run them, since the model is not called.
        Optional<ClientTools> client = m.clientTools().isEmpty() ? Optional.empty()
                : Optional.of(new ClientTools(m.clientTools(), (scope, calls) -> CompletableFuture.failedFuture(
                        new IllegalStateException("a preview calls no tools"))));
        ChatRequest preview = agent.previewRequest(session, m.text(), m.images(), client);
        Api.json(res, api.runtime.model(agent.definition().model()).requestBody(preview, request.streaming()));
    }
}

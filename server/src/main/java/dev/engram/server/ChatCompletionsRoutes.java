package dev.engram.server;

import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Letta's OpenAI-compatible chat endpoint ({@code POST /v1/chat/completions}): the request's {@code model} names one of
 * the caller's agents ({@code agent-...}), and its last {@code user} message is one turn of that agent, as in Letta (the
 * earlier messages are already in the agent's memory). The answer is OpenAI's {@code ChatCompletion} whose content is
 * what the agent said to the user, or with {@code stream} OpenAI's {@code chat.completion.chunk} events then
 * {@code [DONE]}. {@code POST /v1/voice-beta/{agent_id}/chat/completions} (Letta's voice agents, which send the same
 * request) names the agent in its path instead.
 */
final class ChatCompletionsRoutes {
    private final Api api;

    ChatCompletionsRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .add(Route.caller(POST, "/v1/chat/completions", this::completions))
                .add(Route.agent(api, POST, "/v1/voice-beta/{agent_id}/chat/completions", this::voice))
                .list();
    }

    private void completions(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String model = body.requiredString("model");
        if (!model.startsWith("agent-")) {
            throw body.problem("value_error", "For this endpoint, 'model' is an agent's id (agent-...), the agent that "
                    + "answers; got '" + model + "'", "model");
        }
        Body letta = turn(body);
        complete(api.agent(caller, model), body, letta, res);
    }

    private void voice(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        complete(agent, body, turn(body), res);
    }

    /**
     * Letta's message request of the request's last user message; a 422 for a request without one, or with an unreadable
     * field.
     */
    private static Body turn(Body body) {
        List<Body> messages = body.objects("messages").orElseThrow(() -> body.problem("missing", "Field required", "messages"));
        body.bool("stream");
        Optional<Body> last = Optional.empty();
        for (Body m : messages) {
            if (m.string("role").orElse("").equals("user")) {
                last = Optional.of(m);
            }
        }
        Body user = last.orElseThrow(() -> body.problem("value_error", "No user message found in the request; include at "
                + "least one message with role 'user'", "messages"));
        JsonNode content = user.raw("content").orElseThrow(() -> user.problem("missing", "Field required", "content"));
        ObjectNode letta = Body.JSON.createObjectNode();
        letta.putArray("messages").addObject().put("role", "user").set("content", content.deepCopy());
        return Body.of(letta, body.location("messages"));
    }

    private void complete(Agent agent, Body body, Body letta, ServerResponse res) {
        boolean stream = body.bool("stream").orElse(false);
        TurnRequest turn = TurnRequest.of(agent, letta, api.messageLimits(), false);
        ObjectNode answer = api.runs.respond(api, agent, ConversationRoutes.DEFAULT, turn);
        List<String> said = new ArrayList<>();
        for (JsonNode m : answer.path("messages")) {
            if (m.path("message_type").asString().equals("assistant_message") && !m.path("content").asString("").isEmpty()) {
                said.add(m.path("content").asString());
            }
        }
        String id = "chatcmpl-" + UUID.randomUUID();
        long created = api.store.clock().instant().getEpochSecond();
        if (stream) {
            stream(res, id, created, agent.id(), said);
            return;
        }
        ObjectNode out = Body.JSON.createObjectNode();
        out.put("id", id).put("object", "chat.completion").put("created", created).put("model", agent.id());
        ObjectNode choice = out.putArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("message").put("role", "assistant").put("content", String.join("\n\n", said));
        choice.put("finish_reason", "stop");
        choice.putNull("logprobs");
        JsonNode usage = answer.path("usage");
        out.putObject("usage").put("prompt_tokens", usage.path("prompt_tokens").asLong())
                .put("completion_tokens", usage.path("completion_tokens").asLong())
                .put("total_tokens", usage.path("total_tokens").asLong());
        Api.json(res, out);
    }

    /** OpenAI's stream: a chunk per thing the agent said (the first with the role), a last chunk that stops, [DONE]. */
    private static void stream(ServerResponse res, String id, long created, String model, List<String> said) {
        res.header(HeaderNames.CONTENT_TYPE, "text/event-stream");
        res.header(HeaderNames.CACHE_CONTROL, "no-cache");
        try (OutputStream out = res.outputStream()) {
            boolean first = true;
            for (String text : said) {
                ObjectNode delta = Body.JSON.createObjectNode();
                if (first) {
                    delta.put("role", "assistant");
                    first = false;
                }
                delta.put("content", text);
                write(out, chunk(id, created, model, delta, null));
            }
            write(out, chunk(id, created, model, Body.JSON.createObjectNode(), "stop"));
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode chunk(String id, long created, String model, ObjectNode delta, String finish) {
        ObjectNode c = Body.JSON.createObjectNode();
        c.put("id", id).put("object", "chat.completion.chunk").put("created", created).put("model", model);
        ObjectNode choice = c.putArray("choices").addObject();
        choice.put("index", 0);
        choice.set("delta", delta);
        choice.put("finish_reason", finish);
        return c;
    }

    private static void write(OutputStream out, JsonNode chunk) throws IOException {
        out.write(("data: " + Body.JSON.writeValueAsString(chunk) + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}

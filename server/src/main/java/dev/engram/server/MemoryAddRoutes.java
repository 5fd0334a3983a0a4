package dev.engram.server;

import static io.helidon.http.Method.POST;

import dev.engram.agents.AddJob;
import dev.engram.agents.AddOptions;
import dev.engram.agents.Agent;
import dev.engram.agents.MemoryMessage;
import dev.engram.agents.MemoryScope;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * Memory extracted from a conversation ({@code POST /v1/agents/{agent_id}/memory/add}, Engram's own, shaped as Mem0's
 * {@code add}): the body's {@code messages} (an array of {@code {"role", "content"}}) go to a background job on the
 * agent's model, answered at once with {@code 202} and the job (Letta's {@code Job}; follow it at
 * {@code /v1/jobs/{job_id}}). Facts become the agent's archival entries, or its user's notes with
 * {@code "store_as": "notes"}; {@code "infer": false} stores the messages as they are. Bad input is a 422 and starts no job.
 */
final class MemoryAddRoutes {
    private final Api api;

    MemoryAddRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return List.of(Route.agent(api, POST, "/v1/agents/{agent_id}/memory/add", this::add));
    }

    private void add(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        JsonNode raw = body.raw("messages").orElseThrow(() -> ApiException.invalid("missing", "Field required", "body",
                "messages"));
        List<MemoryMessage> messages;
        try {
            messages = MemoryMessage.fromJson(raw);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("value_error", e.getMessage(), "body", "messages");
        }
        boolean infer = body.bool("infer").orElse(true);
        String storeAs = body.string("store_as").orElse("archival");
        AddOptions.Target target = switch (storeAs) {
            case "archival" -> AddOptions.Target.ARCHIVAL;
            case "notes" -> AddOptions.Target.NOTE;
            default -> throw ApiException.invalid("value_error", "store_as is 'archival' or 'notes', got '" + storeAs + "'",
                    "body", "store_as");
        };
        AddJob job;
        try {
            job = api.memory.add(messages, MemoryScope.agent(agent.userId(), agent.scope().agentId()),
                    AddOptions.defaults().withRaw(!infer).withTarget(target));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("value_error", e.getMessage(), "body", "messages");
        }
        Api.json(res, Status.ACCEPTED_202, JobRoutes.view(job.job()));
    }
}

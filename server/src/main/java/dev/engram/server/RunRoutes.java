package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;

import dev.engram.memory.Run;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/runs}: a run as Letta shows it ({@code GET /v1/runs/{id}}) and the stream of a background run picked up
 * where it broke ({@code POST /v1/runs/{id}/stream}, {@link RunReplay}). A run is its user's: any other key gets 404.
 */
final class RunRoutes {
    private final Api api;

    RunRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .add(Route.caller(GET, "/v1/runs/{run_id}", this::retrieve))
                .add(Route.caller(POST, "/v1/runs/{run_id}/stream", this::stream))
                .list();
    }

    private void retrieve(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, view(api.runs.get(api, caller, req.path().pathParameters().get("run_id"))));
    }

    private void stream(Caller caller, ServerRequest req, ServerResponse res) {
        Run run = api.runs.get(api, caller, req.path().pathParameters().get("run_id"));
        RunReplay.stream(api, run, Api.body(req), res);
    }

    /** Letta's {@code Run}. */
    static ObjectNode view(Run run) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", run.id());
        o.put("status", run.status().wire());
        o.put("created_at", LettaViews.date(run.createdAt()));
        if (run.completedAt().isPresent()) {
            o.put("completed_at", LettaViews.date(run.completedAt().get()));
            o.put("total_duration_ns", Duration.between(run.createdAt(), run.completedAt().get()).toNanos());
        } else {
            o.putNull("completed_at");
            o.putNull("total_duration_ns");
        }
        o.put("agent_id", run.agentId());
        if (run.conversationId().equals(ConversationRoutes.DEFAULT)) {
            o.putNull("conversation_id");
        } else {
            o.put("conversation_id", run.conversationId());
        }
        o.putNull("base_template_id");
        o.put("background", run.background());
        o.putNull("metadata");
        o.putNull("request_config");
        if (run.stopReason().isEmpty()) {
            o.putNull("stop_reason");
        } else {
            o.put("stop_reason", run.stopReason());
        }
        o.putNull("callback_url");
        o.putNull("callback_sent_at");
        o.putNull("callback_status_code");
        o.putNull("callback_error");
        o.putNull("ttft_ns");
        return o;
    }
}

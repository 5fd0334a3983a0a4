package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Run;
import dev.engram.memory.RunStatus;
import dev.engram.memory.Scope;
import dev.engram.memory.Step;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/runs}: the caller's runs as Letta lists and shows them (list with Letta's filters, active, retrieve, delete,
 * messages, usage, metrics, steps, trace), the stream of a background run picked up where it broke
 * ({@code POST /v1/runs/{id}/stream}, {@link RunReplay}), and {@code POST /v1/agents/{id}/messages/async}, a turn
 * started as a background run. A run is its user's: any other key gets 404. Runs are kept for the server's run
 * retention after they end, so that is what is listed.
 */
final class RunRoutes {
    /** Letta's stop reasons ({@code StopReasonType}). */
    static final Set<String> STOP_REASONS = Set.of("end_turn", "error", "llm_api_error", "invalid_llm_response",
            "invalid_tool_call", "max_steps", "max_tokens_exceeded", "no_tool_call", "tool_rule", "cancelled",
            "insufficient_credits", "requires_approval", "context_window_overflow_in_system_prompt");

    private final Api api;

    RunRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/runs", this::list))
                .add(Route.caller(GET, "/v1/runs/active", this::active))
                .add(Route.caller(GET, "/v1/runs/{run_id}", this::retrieve))
                .add(Route.caller(DELETE, "/v1/runs/{run_id}", this::delete))
                .add(Route.caller(GET, "/v1/runs/{run_id}/messages", this::messages))
                .add(Route.caller(GET, "/v1/runs/{run_id}/usage", (c, req, res) ->
                        Api.json(res, StepViews.usage(steps(c, req)))))
                .add(Route.caller(GET, "/v1/runs/{run_id}/metrics", (c, req, res) -> {
                    Run run = run(c, req);
                    Api.json(res, StepViews.runMetrics(run, api.store.runs().steps(run.userId(), run.id()),
                            api.store.clock().instant()));
                }))
                .add(Route.caller(GET, "/v1/runs/{run_id}/steps", (c, req, res) -> {
                    Pages pages = Pages.of(req, 100, false);
                    orderBy(req);
                    Api.json(res, pages.page(steps(c, req), Step::id, "Step").stream().map(StepViews::step).toList());
                }))
                .add(Route.caller(GET, "/v1/runs/{run_id}/trace", (c, req, res) -> {
                    int limit = Query.integer(req, "limit", 1, 5_000).orElse(1_000);
                    Api.json(res, steps(c, req).stream().limit(limit).map(StepViews::span).toList());
                }))
                .add(Route.caller(POST, "/v1/runs/{run_id}/stream", this::stream))
                .add(Route.agent(api, POST, "/v1/agents/{agent_id}/messages/async", this::async))
                .list();
    }

    private Run run(Caller caller, ServerRequest req) {
        return api.runs.get(api, caller, req.path().pathParameters().get("run_id"));
    }

    private List<Step> steps(Caller caller, ServerRequest req) {
        Run run = run(caller, req);
        return api.store.runs().steps(run.userId(), run.id());
    }

    private void retrieve(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, view(run(caller, req)));
    }

    private void stream(Caller caller, ServerRequest req, ServerResponse res) {
        RunReplay.stream(api, run(caller, req), Api.body(req), res);
    }

    /** Letta's list, newest first by default: a 422 for a status or stop reason Letta does not have. */
    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, false);
        orderBy(req);
        List<String> agents = new ArrayList<>(Query.all(req, "agent_ids"));
        agents.addAll(Query.all(req, "agent_id"));
        List<String> statuses = Query.all(req, "statuses");
        for (String s : statuses) {
            if (Stream.of(RunStatus.values()).noneMatch(v -> v.wire().equals(s))) {
                throw ApiException.invalid("enum", "Input should be 'created', 'running', 'completed', 'failed' or 'cancelled'",
                        "query", "statuses");
            }
        }
        Optional<String> stop = Query.string(req, "stop_reason");
        if (stop.isPresent() && !STOP_REASONS.contains(stop.get())) {
            throw ApiException.invalid("enum", "Input should be one of " + STOP_REASONS.stream().sorted().toList(),
                    "query", "stop_reason");
        }
        Optional<String> background = Query.string(req, "background");
        boolean bg = Query.bool(req, "background", false);
        Optional<String> activeParam = Query.string(req, "active");
        boolean active = Query.bool(req, "active", false);
        Optional<String> conversation = Query.string(req, "conversation_id");
        Predicate<Run> keep = r -> (agents.isEmpty() || agents.contains(r.agentId()))
                && (statuses.isEmpty() || statuses.contains(r.status().wire()))
                && (stop.isEmpty() || stop.get().equals(r.stopReason()))
                && (background.isEmpty() || r.background() == bg)
                && (activeParam.isEmpty() || !active || r.status().isActive())
                && (conversation.isEmpty() || conversation.get().equals(r.conversationId()));
        Api.json(res, pages.page(runs(caller, keep), Run::id, "Run").stream().map(RunRoutes::view).toList());
    }

    private void active(Caller caller, ServerRequest req, ServerResponse res) {
        Optional<String> agent = Query.string(req, "agent_id");
        Optional<String> background = Query.string(req, "background");
        boolean bg = Query.bool(req, "background", false);
        Api.json(res, runs(caller, r -> r.status().isActive() && !api.runs.isStale(r)
                && (agent.isEmpty() || agent.get().equals(r.agentId()))
                && (background.isEmpty() || r.background() == bg)).stream().map(RunRoutes::view).toList());
    }

    /** The caller's runs that {@code keep} keeps, oldest first. */
    private List<Run> runs(Caller caller, Predicate<Run> keep) {
        List<Run> out = new ArrayList<>();
        api.users(caller).forEach(u -> api.store.runs().list(u).stream().filter(keep).forEach(out::add));
        out.sort(Comparator.comparing(Run::createdAt).thenComparing(Run::id));
        return out;
    }

    /** Deletes the run (cancelling its turn first when it runs on this server) and answers it as it was last. */
    private void delete(Caller caller, ServerRequest req, ServerResponse res) {
        Run run = run(caller, req);
        if (run.status().isActive()) {
            Scope scope = run.scope();
            api.turns.running(scope).filter(t -> t.session.equals(run.conversationId()))
                    .ifPresent(t -> api.turns.cancel(scope));
            api.runs.finish(run, RunStatus.CANCELLED, "cancelled");
        }
        Run last = api.store.runs().get(run.userId(), run.id()).orElse(run);
        api.store.runs().delete(run.userId(), run.id());
        Api.json(res, view(last));
    }

    /**
     * The run's messages as Letta's, each with the run's id: the input that started it (the user's message, an approval's
     * answer: its first step's, as Letta stores a turn's input with its first step), then what its steps stored.
     */
    private void messages(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, true);
        orderBy(req);
        Run run = run(caller, req);
        Map<String, String> stepOf = new HashMap<>();
        List<Long> ids = new ArrayList<>();
        for (Step step : api.store.runs().steps(run.userId(), run.id())) {
            step.messageIds().forEach(id -> stepOf.putIfAbsent(Ids.message(id), step.id()));
            ids.addAll(step.messageIds());
        }
        List<ObjectNode> views = messages(api, run.scope(), ids);
        // Each view of a stored message (reasoning, call, return) carries the id of the step that stored it, as Letta's.
        views.forEach(m -> m.put("run_id", run.id()).put("step_id", stepOf.get(m.path("id").asString())));
        Api.json(res, pages.page(views, m -> m.path("id").asString(), "Message"));
    }

    /** Stored messages of the scope, by id, as Letta's messages (with their run's id where the caller adds it). */
    static List<ObjectNode> messages(Api api, Scope scope, List<Long> ids) {
        List<ConversationMessage> stored = ids.stream().map(id -> api.store.messages().get(scope, id))
                .flatMap(Optional::stream).toList();
        return new TurnViews.View(true, Optional.empty()).of(stored);
    }

    /** Letta's {@code order_by}: only {@code created_at}; a 422 for any other. */
    static void orderBy(ServerRequest req) {
        Optional<String> by = Query.string(req, "order_by");
        if (by.isPresent() && !by.get().equals("created_at")) {
            throw ApiException.invalid("literal_error", "Input should be 'created_at'", "query", "order_by");
        }
    }

    /**
     * Starts the turn a message asks for as a background run and answers the run at once (Letta's
     * {@code LettaAsyncRequest}); the run's events are read with {@code POST /v1/runs/{id}/stream}. The turn runs as
     * every turn does, under its agent's lock, quotas and approvals. A {@code callback_url} is refused: Engram does not
     * call clients back; poll the run or stream it.
     */
    private void async(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        if (body.raw("callback_url").filter(v -> !v.isNull()).isPresent()) {
            throw ApiException.badRequest("callback_url is not supported: Engram does not call clients back. Poll "
                    + "GET /v1/runs/{run_id} or read its events with POST /v1/runs/{run_id}/stream.");
        }
        TurnRequest request = TurnRequest.of(agent, body, api.messageLimits(), false);
        Api.json(res, view(SseTurn.detached(api, agent, request, "default")));
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

package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Job;
import dev.engram.memory.JobStatus;
import dev.engram.memory.JobStore;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Letta's message batches ({@code /v1/messages/batches}): a batch of agent requests, accepted at once (every request is
 * checked first: a bad one refuses the whole batch and stores nothing), kept as a job of kind {@value BatchRunner#KIND}
 * with its requests, and run in the background one request after the other, each a turn of its agent as
 * {@code POST /v1/agents/{id}/messages} would run it. The batch's {@code metadata.result} says, per request, how it ended
 * and which messages it stored ({@code GET .../messages} lists them). Cancelling stops the running turn and the rest. A
 * batch the server was running when it stopped is marked failed at the next start ({@link BatchRunner#failAbandoned}).
 */
final class BatchRoutes {
    /** The most requests one batch may hold. */
    static final int MAX_REQUESTS = 100;

    private final Api api;
    private final BatchRunner runner;

    BatchRoutes(Api api, BatchRunner runner) {
        this.api = api;
        this.runner = runner;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(POST, "/v1/messages/batches", this::create))
                .twin(Route.caller(GET, "/v1/messages/batches", this::list))
                .add(Route.caller(GET, "/v1/messages/batches/{batch_id}", this::retrieve))
                .add(Route.caller(GET, "/v1/messages/batches/{batch_id}/messages", this::messages))
                .add(Route.caller(PATCH, "/v1/messages/batches/{batch_id}/cancel", this::cancel))
                .list();
    }

    private void create(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        if (body.has("callback_url")) {
            throw body.problem("value_error", "Engram does not call a URL when a batch ends: poll GET /v1/messages/batches/"
                    + "{batch_id} instead, and leave callback_url out", "callback_url");
        }
        List<Body> requests = body.objects("requests").orElseThrow(() -> body.problem("missing", "Field required", "requests"));
        if (requests.isEmpty() || requests.size() > MAX_REQUESTS) {
            throw body.problem("value_error", "A batch holds 1 to " + MAX_REQUESTS + " requests, not " + requests.size(),
                    "requests");
        }
        Optional<String> user = Optional.empty();
        ArrayNode input = Body.JSON.createArrayNode();
        for (Body request : requests) {
            Agent agent = api.agent(caller, request.requiredString("agent_id"));
            if (user.isPresent() && !user.get().equals(agent.userId())) {
                throw request.problem("value_error", "A batch's agents belong to one user; send another batch for user '"
                        + agent.userId() + "'", "agent_id");
            }
            user = Optional.of(agent.userId());
            TurnRequest.of(agent, request, api.messageLimits(), false, false); // a bad request refuses the batch
            input.add(request.node());
        }
        Job job = api.store.jobs().create(user.orElseThrow(), BatchRunner.KIND,
                Body.JSON.writeValueAsString(Body.JSON.createObjectNode().set("requests", input)));
        runner.submit(job);
        Api.json(res, view(job));
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, false);
        Api.json(res, pages.page(batches(caller), Job::id, "batch").stream().map(BatchRoutes::view).toList());
    }

    private void retrieve(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, view(batch(caller, req.path().pathParameters().get("batch_id"))));
    }

    /** Letta's {@code LettaBatchMessages}: the messages the batch's turns stored, by creation, filtered by agent. */
    private void messages(Caller caller, ServerRequest req, ServerResponse res) {
        Job job = batch(caller, req.path().pathParameters().get("batch_id"));
        Pages pages = Pages.of(req, 100, false);
        Optional<String> agentId = Query.string(req, "agent_id");
        List<ConversationMessage> stored = new ArrayList<>();
        for (JsonNode done : Body.JSON.readTree(job.result()).path("requests")) {
            String agent = done.path("agent_id").asString();
            if (agentId.map(a -> !a.equals(agent)).orElse(false)) {
                continue;
            }
            for (JsonNode id : done.path("message_ids")) {
                api.store.messages().get(dev.engram.memory.Scope.of(job.userId(), agent), id.asLong()).ifPresent(stored::add);
            }
        }
        stored.sort(Comparator.comparingLong(ConversationMessage::id));
        List<ObjectNode> page = pages.page(stored, m -> Ids.message(m.id()), "message").stream()
                .map(MessageSearchRoutes::message).toList();
        ObjectNode out = Body.JSON.createObjectNode();
        out.set("messages", Body.JSON.createArrayNode().addAll(page));
        Api.json(res, out);
    }

    private void cancel(Caller caller, ServerRequest req, ServerResponse res) {
        Job job = batch(caller, req.path().pathParameters().get("batch_id"));
        Api.json(res, view(runner.cancel(job)));
    }

    /** The caller's batches, oldest first. */
    private List<Job> batches(Caller caller) {
        List<Job> jobs = new ArrayList<>();
        for (String user : api.users(caller)) {
            api.store.jobs().list(user, JobStore.MAX_LIST).stream().filter(j -> j.kind().equals(BatchRunner.KIND))
                    .forEach(jobs::add);
        }
        jobs.sort(Comparator.comparing(Job::createdAt).thenComparing(Job::id));
        return jobs;
    }

    /** The caller's batch of that id; a 404 for anyone else's, or for a job that is not a batch. */
    private Job batch(Caller caller, String id) {
        for (String user : api.users(caller)) {
            Optional<Job> job = api.store.jobs().get(user, id).filter(j -> j.kind().equals(BatchRunner.KIND));
            if (job.isPresent()) {
                return job.get();
            }
        }
        throw ApiException.notFound("Batch '" + id + "' not found.");
    }

    /** Letta's {@code BatchJob}. */
    static ObjectNode view(Job job) {
        JsonNode result = Body.JSON.readTree(job.result());
        String status = result.path("cancelled").asBoolean(false) ? "cancelled" : job.status().wire();
        ObjectNode o = Body.JSON.createObjectNode().put("id", job.id()).put("status", status)
                .put("created_at", LettaViews.date(job.createdAt())).put("updated_at", LettaViews.date(job.updatedAt()))
                .put("job_type", "batch").put("background", true).put("created_by_id", job.userId())
                .put("last_updated_by_id", job.userId());
        job.completedAt().ifPresentOrElse(t -> o.put("completed_at", LettaViews.date(t)), () -> o.putNull("completed_at"));
        o.putNull("agent_id");
        o.putNull("callback_url");
        o.putNull("callback_sent_at");
        o.putNull("callback_status_code");
        o.putNull("callback_error");
        o.putNull("ttft_ns");
        o.putNull("total_duration_ns");
        if (job.status() == JobStatus.FAILED && !status.equals("cancelled")) {
            o.put("stop_reason", "error");
        } else if (status.equals("cancelled")) {
            o.put("stop_reason", "cancelled");
        } else if (job.status() == JobStatus.COMPLETED) {
            o.put("stop_reason", "end_turn");
        } else {
            o.putNull("stop_reason");
        }
        ObjectNode meta = o.putObject("metadata").put("job_type", "batch_messages").put("attempts", job.attempts());
        meta.set("result", result);
        meta.put("error", job.error());
        return o;
    }
}

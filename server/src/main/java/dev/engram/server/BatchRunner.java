package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentNotFoundException;
import dev.engram.memory.Job;
import dev.engram.memory.JobLeases;
import dev.engram.memory.JobStatus;
import dev.engram.memory.Scope;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs the message batches of {@link BatchRoutes} in the background, one virtual thread per batch, its requests one
 * after the other. While it runs a batch it touches the batch's job every {@link #HEARTBEAT}; a batch that is active
 * but unchanged for longer than {@link #LEASE} and not run here has lost the process that ran it (this server's last
 * run, or another server on the same database): {@link #failAbandoned} marks it failed, saying which requests had
 * finished, so that an accepted batch is never silently lost. (A turn cut off half-way cannot be resumed safely: the
 * model may have called tools; the client sends the rest again.)
 */
final class BatchRunner implements AutoCloseable {
    /** The kind of a batch's job. */
    static final String KIND = "message_batch";
    static final Duration HEARTBEAT = JobLeases.HEARTBEAT;
    static final Duration LEASE = JobLeases.LEASE;

    private final Api api;
    /** The batches run here: job id to the scope of the agent whose turn runs now (the user's, between turns). */
    private final Map<String, Scope> running = new ConcurrentHashMap<>();
    /** Keeps the batches run here alive in the store, and tells an abandoned one. */
    private final JobLeases leases;

    BatchRunner(Api api) {
        this.api = api;
        this.leases = JobLeases.on(api.store);
    }

    /** Fails the abandoned batches now, then every lease, and keeps the batches run here alive. */
    void start() {
        failAbandoned();
        leases.every(LEASE, this::failAbandoned);
    }

    /** Starts running an accepted batch. */
    void submit(Job job) {
        running.put(job.id(), Scope.of(job.userId(), Ids.BLOCK_HOLDER));
        leases.hold(job);
        Thread.ofVirtual().name("engram-batch-" + job.id()).start(() -> run(job));
    }

    /**
     * Cancels a batch: an active one ends as failed with {@code cancelled} in its result (Letta's status
     * {@code cancelled}), and the turn it runs now is cancelled; an ended one stays as it ended.
     */
    Job cancel(Job job) {
        if (!job.status().isActive()) {
            return job;
        }
        ObjectNode result = (ObjectNode) Body.JSON.readTree(job.result());
        result.put("cancelled", true);
        Job ended = api.store.jobs().finish(job.userId(), job.id(), JobStatus.FAILED, Body.JSON.writeValueAsString(result),
                "Cancelled by request (PATCH /v1/messages/batches/" + job.id() + "/cancel)");
        Scope now = running.get(job.id());
        if (now != null && !now.agentId().equals(Ids.BLOCK_HOLDER)) {
            api.turns.cancel(now);
        }
        return ended;
    }

    private void run(Job accepted) {
        try {
            Job job = api.store.jobs().start(accepted.userId(), accepted.id());
            JsonNode requests = Body.JSON.readTree(job.input()).path("requests");
            ObjectNode result = Body.JSON.createObjectNode();
            ArrayNode done = result.putArray("requests");
            for (int i = 0; i < requests.size(); i++) {
                if (!api.store.jobs().get(job.userId(), job.id()).map(j -> j.status().isActive()).orElse(false)) {
                    return; // cancelled
                }
                done.add(runOne(job.userId(), job.id(), requests.get(i), i));
                api.store.jobs().progress(job.userId(), job.id(), Body.JSON.writeValueAsString(result));
            }
            api.store.jobs().finish(job.userId(), job.id(), JobStatus.COMPLETED, Body.JSON.writeValueAsString(result), "");
        } catch (IllegalArgumentException e) {
            // the batch ended meanwhile (cancelled): it stays as it ended
        } catch (RuntimeException e) {
            Incidents.warn("batch-" + e.getClass().getName(), "A message batch failed: " + e);
            try {
                api.store.jobs().finish(accepted.userId(), accepted.id(), JobStatus.FAILED,
                        api.store.jobs().get(accepted.userId(), accepted.id()).map(Job::result).orElse("{}"),
                        "The batch stopped: " + Incidents.clientText(e, "a batch"));
            } catch (RuntimeException ignored) {
                // the store is unreachable: the batch is failed as abandoned later
            }
        } finally {
            running.remove(accepted.id());
            leases.release(accepted.id());
        }
    }

    /** One request's turn, as {@code {agent_id, status, stop_reason, message_ids, error}}. */
    private ObjectNode runOne(String user, String batchId, JsonNode request, int index) {
        String agentId = request.path("agent_id").asString();
        ObjectNode out = Body.JSON.createObjectNode().put("agent_id", agentId);
        ArrayNode ids = out.putArray("message_ids");
        try {
            Agent agent = api.runtime.current(user, agentId);
            running.put(batchId, agent.scope());
            TurnRequest turn = TurnRequest.of(agent, Body.of(request, List.of("body", "requests", String.valueOf(index))),
                    api.messageLimits(), false, false);
            ObjectNode answer = api.runs.respond(api, agent, "default", turn);
            Set<Long> stored = new LinkedHashSet<>();
            for (JsonNode m : answer.path("messages")) {
                stored.add(Ids.message(m.path("id").asString(), "A message"));
            }
            stored.forEach(ids::add);
            String reason = answer.path("stop_reason").path("stop_reason").asString("end_turn");
            out.put("status", reason.equals("error") || reason.equals("cancelled") ? "failed" : "completed")
                    .put("stop_reason", reason).put("error", "");
        } catch (AgentNotFoundException e) {
            out.put("status", "failed").put("stop_reason", "error").put("error", "Agent '" + agentId + "' no longer exists");
        } catch (ApiException e) {
            out.put("status", "failed").put("stop_reason", "error").put("error", e.body().path("detail").toString());
        } catch (RuntimeException e) {
            out.put("status", "failed").put("stop_reason", "error").put("error", Incidents.clientText(e, "a turn"));
        }
        return out;
    }

    /** Marks failed each active batch not run here and unchanged for longer than {@link #LEASE}, saying what it did. */
    void failAbandoned() {
        List<Job> unfinished;
        try {
            unfinished = api.store.jobs().unfinished();
        } catch (RuntimeException e) {
            return; // a backend without jobs, or unreachable now: tried again later
        }
        for (Job job : unfinished) {
            if (!job.kind().equals(KIND) || running.containsKey(job.id()) || !leases.abandoned(job)) {
                continue;
            }
            JsonNode requests = Body.JSON.readTree(job.input()).path("requests");
            int finished = Body.JSON.readTree(job.result()).path("requests").size();
            try {
                api.store.jobs().finish(job.userId(), job.id(), JobStatus.FAILED, job.result(), "The server stopped while the "
                        + "batch ran: " + finished + " of " + requests.size() + " requests had finished (metadata.result lists "
                        + "them); send the others again in a new batch");
            } catch (RuntimeException ignored) {
                // ended meanwhile
            }
        }
    }

    @Override
    public void close() {
        leases.close();
    }
}

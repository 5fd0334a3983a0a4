package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;

import dev.engram.memory.Job;
import dev.engram.memory.JobStore;
import io.helidon.webserver.http.ServerRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * The caller's background jobs as Letta's jobs ({@code GET /v1/jobs/}, newest first, {@code limit} 1 to 1000, default
 * 100, {@code active}; {@code GET /v1/jobs/active}; {@code GET}, {@code DELETE /v1/jobs/{job_id}}; {@code PATCH
 * /v1/jobs/{job_id}/cancel}, a 400 for a job that has ended): another user's job is a 404. Engram's jobs are the memory extraction jobs of
 * {@link MemoryAddRoutes}; a job's {@code metadata} holds its {@code kind}, {@code attempts}, {@code result} (what it
 * stored, merged and failed, so far or in the end) and {@code error}.
 */
final class JobRoutes {
    private final Api api;

    JobRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        // the literal path before the one with an id: Helidon takes the first route that matches
        return List.of(
                Route.caller(GET, "/v1/jobs/active", (caller, req, res) -> {
                    int limit = Query.integer(req, "limit", 1, JobStore.MAX_LIST).orElse(100);
                    Api.json(res, jobs(caller, JobStore.MAX_LIST).stream().filter(j -> j.status().isActive())
                            .limit(limit).map(JobRoutes::view).toList());
                }),
                Route.caller(GET, "/v1/jobs/{job_id}", (caller, req, res) -> Api.json(res, view(job(caller, req)))),
                Route.caller(GET, "/v1/jobs/", (caller, req, res) -> {
                    int limit = Query.integer(req, "limit", 1, JobStore.MAX_LIST).orElse(100);
                    boolean active = Query.bool(req, "active", false);
                    Api.json(res, jobs(caller, limit).stream().filter(j -> !active || j.status().isActive())
                            .limit(limit).map(JobRoutes::view).toList());
                }),
                Route.caller(PATCH, "/v1/jobs/{job_id}/cancel", (caller, req, res) -> {
                    Job job = job(caller, req);
                    if (!job.status().isActive()) {
                        throw ApiException.badRequest("Job '" + job.id() + "' has already ended (" + job.status().wire()
                                + "); only a created or running job can be cancelled.");
                    }
                    Api.json(res, view(api.store.jobs().cancel(job.userId(), job.id())));
                }),
                Route.caller(DELETE, "/v1/jobs/{job_id}", (caller, req, res) -> {
                    Job job = job(caller, req);
                    api.store.jobs().delete(job.userId(), job.id());
                    Api.json(res, view(job));
                }));
    }

    /** The caller's job the path names; a 404 for any other. */
    private Job job(Caller caller, ServerRequest req) {
        String id = req.path().pathParameters().get("job_id");
        for (String user : api.users(caller)) {
            Optional<Job> job = api.store.jobs().get(user, id);
            if (job.isPresent()) {
                return job.get();
            }
        }
        throw ApiException.notFound("Job '" + id + "' not found.");
    }

    /** The caller's newest jobs (up to {@code limit} of each user), newest first. */
    private List<Job> jobs(Caller caller, int limit) {
        List<Job> jobs = new ArrayList<>();
        api.users(caller).forEach(u -> jobs.addAll(api.store.jobs().list(u, limit)));
        jobs.sort(Comparator.comparing(Job::createdAt).thenComparing(Job::id).reversed());
        return jobs;
    }

    /** Letta's {@code Job} of a job. */
    static ObjectNode view(Job job) {
        ObjectNode o = Body.JSON.createObjectNode().put("id", job.id()).put("status", job.status().wire())
                .put("created_at", LettaViews.date(job.createdAt())).put("updated_at", LettaViews.date(job.updatedAt()))
                .put("job_type", "job").put("background", true).put("created_by_id", job.userId());
        job.completedAt().ifPresentOrElse(t -> o.put("completed_at", LettaViews.date(t)), () -> o.putNull("completed_at"));
        job.agentId().ifPresentOrElse(a -> o.put("agent_id", a), () -> o.putNull("agent_id"));
        ObjectNode meta = o.putObject("metadata").put("kind", job.kind()).put("attempts", job.attempts());
        meta.set("result", Body.JSON.readTree(job.result()));
        meta.put("error", job.error());
        return o;
    }
}

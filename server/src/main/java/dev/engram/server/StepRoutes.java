package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;

import dev.engram.memory.Scope;
import dev.engram.memory.Step;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/steps} and {@code /v1/telemetry}: the steps of the caller's runs, one per call to an agent's model, as
 * Letta shows them (list with Letta's filters, retrieve, the messages the step stored, metrics, the provider trace,
 * feedback). A step is its user's: any other key gets 404. Steps are kept and purged with their run.
 */
final class StepRoutes {
    private final Api api;

    StepRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/steps", this::list))
                .add(Route.caller(GET, "/v1/steps/{step_id}", (c, req, res) -> Api.json(res, StepViews.step(step(c, req)))))
                .add(Route.caller(GET, "/v1/steps/{step_id}/messages", this::messages))
                .add(Route.caller(GET, "/v1/steps/{step_id}/metrics", (c, req, res) ->
                        Api.json(res, StepViews.metrics(step(c, req)))))
                .add(Route.caller(GET, "/v1/steps/{step_id}/trace", (c, req, res) ->
                        Api.json(res, StepViews.trace(step(c, req)))))
                .add(Route.caller(PATCH, "/v1/steps/{step_id}/feedback", this::feedback))
                .add(Route.caller(GET, "/v1/telemetry/{step_id}", (c, req, res) ->
                        Api.json(res, StepViews.trace(step(c, req)))))
                .list();
    }

    /** The caller's step the path names; a 404 for any other. */
    private Step step(Caller caller, ServerRequest req) {
        String id = req.path().pathParameters().get("step_id");
        for (String user : api.users(caller)) {
            Optional<Step> step = api.store.runs().step(user, id);
            if (step.isPresent()) {
                return step.get();
            }
        }
        throw ApiException.notFound("Step '" + id + "' not found.");
    }

    /** Letta's list, newest first by default; a 422 for a malformed date or feedback. */
    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, false);
        RunRoutes.orderBy(req);
        Optional<Instant> start = date(req, "start_date", false);
        Optional<Instant> end = date(req, "end_date", true);
        Optional<String> model = Query.string(req, "model");
        Optional<String> agent = Query.string(req, "agent_id");
        Optional<String> feedback = Query.string(req, "feedback");
        if (feedback.isPresent() && !Step.FEEDBACK.contains(feedback.get())) {
            throw ApiException.invalid("enum", "Input should be 'positive' or 'negative'", "query", "feedback");
        }
        Optional<String> hasFeedbackParam = Query.string(req, "has_feedback");
        boolean hasFeedback = Query.bool(req, "has_feedback", false);
        List<String> tags = Query.all(req, "tags");
        Predicate<Step> keep = s -> start.map(t -> !s.startedAt().isBefore(t)).orElse(true)
                && end.map(t -> s.startedAt().isBefore(t)).orElse(true)
                && model.map(m -> m.equals(s.model())).orElse(true)
                && agent.map(a -> a.equals(s.agentId())).orElse(true)
                && feedback.map(f -> f.equals(s.feedback())).orElse(true)
                && (hasFeedbackParam.isEmpty() || hasFeedback != s.feedback().isEmpty())
                && s.tags().containsAll(tags);
        List<Step> steps = new ArrayList<>();
        api.users(caller).forEach(u -> api.store.runs().steps(u).stream().filter(keep).forEach(steps::add));
        steps.sort(Comparator.comparing(Step::startedAt).thenComparing(Step::id));
        Api.json(res, pages.page(steps, Step::id, "Step").stream().map(StepViews::step).toList());
    }

    /** A date of the query (ISO 8601, a day or a moment; an end day counts whole); a 422 when malformed. */
    private static Optional<Instant> date(ServerRequest req, String name, boolean endOfDay) {
        Optional<String> raw = Query.string(req, name);
        if (raw.isEmpty()) {
            return Optional.empty();
        }
        try {
            if (raw.get().length() == 10) {
                LocalDate day = LocalDate.parse(raw.get());
                return Optional.of((endOfDay ? day.plusDays(1) : day).atStartOfDay().toInstant(ZoneOffset.UTC));
            }
            return Optional.of(OffsetDateTime.parse(raw.get()).toInstant());
        } catch (DateTimeParseException e) {
            throw ApiException.invalid("datetime_parsing", "Input should be an ISO 8601 date or date-time, such as "
                    + "2026-11-25 or 2026-11-25T08:00:00Z", "query", name);
        }
    }

    private void messages(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, true);
        RunRoutes.orderBy(req);
        Step step = step(caller, req);
        List<ObjectNode> views = RunRoutes.messages(api, Scope.of(step.userId(), step.agentId()), step.messageIds());
        views.forEach(m -> m.put("run_id", step.runId()).put("step_id", step.id()));
        Api.json(res, pages.page(views, m -> m.path("id").asString(), "Message"));
    }

    /**
     * Letta's {@code ModifyFeedbackRequest}: {@code feedback} {@code positive}, {@code negative} or {@code null} (none),
     * {@code tags} a list of strings; a 422, and nothing changed, for anything else.
     */
    private void feedback(Caller caller, ServerRequest req, ServerResponse res) {
        Step step = step(caller, req);
        Body body = Api.body(req);
        Optional<JsonNode> raw = body.raw("feedback");
        String feedback = "";
        if (raw.isPresent() && !raw.get().isNull()) {
            if (!raw.get().isString() || !Step.FEEDBACK.contains(raw.get().asString())) {
                throw body.problem("enum", "Input should be 'positive' or 'negative'", "feedback");
            }
            feedback = raw.get().asString();
        }
        List<String> tags = body.strings("tags").orElse(step.tags());
        if (tags.stream().anyMatch(String::isBlank)) {
            throw body.problem("value_error", "a tag is not blank", "tags");
        }
        Api.json(res, StepViews.step(api.store.runs().feedback(step.userId(), step.id(), feedback, tags)));
    }
}

package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleStore;
import dev.engram.memory.ScheduleTiming;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/agents/{agent_id}/schedule}: Letta's scheduled messages over Engram's schedules ({@link ScheduleStore}),
 * which the server's scheduler delivers as turns in the session API messages go to. A one-time schedule's
 * {@code scheduled_at} is milliseconds since the epoch; a recurring one's {@code cron_expression} is a five-field Unix
 * cron read in UTC. Created within the runtime's schedule limits (how far ahead, how often). Listed and retrieved
 * while they will still fire; one that fired for the last time, or was deleted, is not found. Fields Engram cannot
 * honour ({@code max_steps}, {@code callback_url}, {@code include_return_message_types}) are refused, never dropped.
 */
final class ScheduleRoutes {
    /** The session scheduled messages are delivered in: the one the server's message endpoints use. */
    static final String SESSION = "default";
    private static final List<String> UNSUPPORTED = List.of("max_steps", "callback_url", "include_return_message_types");

    private final Api api;

    ScheduleRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return List.of(
                Route.agent(api, POST, "/v1/agents/{agent_id}/schedule", this::create),
                Route.agent(api, POST, "/v1/agents/{agent_id}/schedule/", this::create),
                Route.agent(api, GET, "/v1/agents/{agent_id}/schedule", this::list),
                Route.agent(api, GET, "/v1/agents/{agent_id}/schedule/", this::list),
                Route.agent(api, GET, "/v1/agents/{agent_id}/schedule/{scheduled_message_id}", this::retrieve),
                Route.agent(api, DELETE, "/v1/agents/{agent_id}/schedule/{scheduled_message_id}", this::delete));
    }

    private void create(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        for (String field : UNSUPPORTED) {
            if (body.has(field)) {
                throw body.problem("value_error", "Engram delivers a scheduled message as a turn whose messages the agent's "
                        + "message list shows; it does not take '" + field + "': leave it out", field);
            }
        }
        if (body.objects("messages").isEmpty()) {
            throw body.problem("missing", "Field required", "messages");
        }
        if (!(TurnRequest.input(body, api.messageLimits()) instanceof TurnRequest.Input.Message message)) {
            throw body.problem("value_error", "A scheduled message is a user message, not an approval", "messages");
        }
        ImageParts.refuse(body, message.images(), "messages", "Scheduled messages");
        Body schedule = body.object("schedule").map(o -> Body.of(o, body.location("schedule")))
                .orElseThrow(() -> body.problem("missing", "Field required", "schedule"));
        ScheduleTiming timing = timing(schedule);
        ScheduleStore schedules = api.store.schedules().limitedBy(api.runtime.scheduler().limits());
        long waiting = schedules.list(agent.scope()).stream().filter(Schedule::active).count();
        if (waiting >= ScheduleStore.MAX_ACTIVE_PER_AGENT) {
            throw ApiException.badRequest("Agent '" + agent.id() + "' already has " + waiting + " scheduled messages waiting, "
                    + "the most it may have; delete one first.");
        }
        Schedule created;
        try {
            created = schedules.create(agent.scope(), SESSION, message.text(), timing);
        } catch (IllegalArgumentException e) {
            throw schedule.problem("value_error", Incidents.clientText(e, "a schedule"),
                    timing instanceof ScheduleTiming.Once ? "scheduled_at" : "cron_expression");
        }
        ObjectNode out = Body.JSON.createObjectNode().put("id", created.id());
        created.nextRunAt().ifPresent(t -> out.put("next_scheduled_at", LettaViews.date(t)));
        Api.json(res, Status.CREATED_201, out);
    }

    /** The timing a {@code schedule} object asks for; a 422 naming the field for anything malformed. */
    private static ScheduleTiming timing(Body schedule) {
        String type = schedule.string("type").orElse("one-time");
        return switch (type) {
            case "one-time" -> {
                JsonNode at = schedule.raw("scheduled_at").orElseThrow(() -> schedule.problem("missing", "Field required",
                        "scheduled_at"));
                if (!at.isNumber()) {
                    throw schedule.problem("float_type", "Input should be a number: milliseconds since the epoch",
                            "scheduled_at");
                }
                yield ScheduleTiming.once(Instant.ofEpochMilli(at.asLong()));
            }
            case "recurring" -> {
                String cron = schedule.requiredString("cron_expression");
                try {
                    yield ScheduleTiming.cron(cron, ZoneOffset.UTC);
                } catch (IllegalArgumentException e) {
                    throw schedule.problem("value_error", Incidents.clientText(e, "a cron expression"), "cron_expression");
                }
            }
            default -> throw schedule.problem("literal_error", "Input should be 'one-time' or 'recurring', not '" + type + "'",
                    "type");
        };
    }

    private void list(Agent agent, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, true);
        List<Schedule> waiting = api.store.schedules().list(agent.scope()).stream().filter(Schedule::active).toList();
        List<Schedule> page = new Pages(Optional.empty(), pages.after(), pages.limit() + 1, true)
                .page(waiting, Schedule::id, "scheduled message");
        ObjectNode out = Body.JSON.createObjectNode();
        page.stream().limit(pages.limit()).forEach(s -> out.withArray("scheduled_messages").add(view(s)));
        out.withArray("scheduled_messages");
        out.put("has_next_page", page.size() > pages.limit());
        Api.json(res, out);
    }

    private void retrieve(Agent agent, ServerRequest req, ServerResponse res) {
        Api.json(res, view(waiting(agent, req)));
    }

    private void delete(Agent agent, ServerRequest req, ServerResponse res) {
        Schedule s = waiting(agent, req);
        if (!api.store.schedules().cancel(agent.userId(), s.id())) {
            throw notFound(s.id());
        }
        Api.json(res, Body.JSON.createObjectNode().put("success", true));
    }

    /** The agent's schedule the path names, while it will still fire; a 404 otherwise (another agent's or user's too). */
    private Schedule waiting(Agent agent, ServerRequest req) {
        String id = req.path().pathParameters().get("scheduled_message_id");
        return api.store.schedules().get(agent.userId(), id).filter(s -> s.scope().equals(agent.scope()) && s.active())
                .orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(String id) {
        return ApiException.notFound("Scheduled message '" + id + "' not found (it fired for the last time, was deleted, "
                + "or is not this agent's).");
    }

    /** Letta's view of a scheduled message. */
    private static ObjectNode view(Schedule s) {
        ObjectNode o = Body.JSON.createObjectNode().put("id", s.id()).put("agent_id", s.scope().agentId());
        o.putObject("message").putArray("messages").addObject().put("role", "user").put("content", s.message());
        ObjectNode schedule = o.putObject("schedule");
        switch (s.timing()) {
            case ScheduleTiming.Once once -> schedule.put("type", "one-time").put("scheduled_at", once.at().toEpochMilli());
            case ScheduleTiming.Cron cron -> schedule.put("type", "recurring").put("cron_expression", cron.expression());
        }
        s.nextRunAt().ifPresentOrElse(t -> o.put("next_scheduled_time", LettaViews.date(t)),
                () -> o.putNull("next_scheduled_time"));
        return o;
    }
}

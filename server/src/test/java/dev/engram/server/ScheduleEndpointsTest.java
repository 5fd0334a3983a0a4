package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleLimits;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Letta's {@code /v1/agents/{agent_id}/schedule} endpoints over Engram's schedules: create, list, retrieve, delete. */
class ScheduleEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;
    Scope scope;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.scheduleLimits(ScheduleLimits.defaults()
                .withMinInterval(Duration.ofHours(1)))));
        agent = fx.agent(fx.ana, "helper");
        scope = Scope.of("ana", agent);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private String path() {
        return "/v1/agents/" + agent + "/schedule";
    }

    private static Map<String, Object> oneTime(Instant at) {
        return Map.of("type", "one-time", "scheduled_at", at.toEpochMilli());
    }

    private static Object body(String text, Object schedule) {
        return obj("messages", List.of(obj("role", "user", "content", text)), "schedule", schedule);
    }

    @Test
    void aScheduledMessageIsCreatedListedRetrievedAndDeletedAsLettaShowsIt() {
        Instant at = Instant.now().plus(Duration.ofHours(2)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        ServerFixture.Response created = fx.post(fx.ana, path(), body("Generate your daily summary report", oneTime(at)));
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        String id = created.json().path("id").asString();
        assertThat(id).startsWith("sched-");
        assertThat(Instant.parse(created.json().path("next_scheduled_at").asString())).isEqualTo(at);

        Schedule stored = fx.store.schedules().get("ana", id).orElseThrow();
        assertThat(stored.scope()).isEqualTo(scope);
        assertThat(stored.sessionId()).as("the session the server's message endpoints use").isEqualTo("default");
        assertThat(stored.message()).isEqualTo("Generate your daily summary report");
        assertThat(stored.timing()).isEqualTo(ScheduleTiming.once(at));

        ServerFixture.Response recurring = fx.post(fx.ana, path() + "/", obj("messages", List.of(obj("role", "user",
                "content", List.of(obj("type", "text", "text", "Check the news")))), "schedule",
                Map.of("type", "recurring", "cron_expression", "0 9 * * 1-5")));
        assertThat(recurring.status()).as(recurring.text()).isEqualTo(201);
        assertThat(fx.store.schedules().get("ana", recurring.json().path("id").asString()).orElseThrow().timing())
                .isEqualTo(ScheduleTiming.cron("0 9 * * 1-5", ZoneOffset.UTC));

        JsonNode list = fx.get(fx.ana, path()).json();
        assertThat(list.path("has_next_page").asBoolean()).isFalse();
        assertThat(list.path("scheduled_messages")).hasSize(2);
        JsonNode first = fx.get(fx.ana, path() + "?limit=1").json();
        assertThat(first.path("scheduled_messages")).hasSize(1);
        assertThat(first.path("has_next_page").asBoolean()).isTrue();
        String firstId = first.path("scheduled_messages").get(0).path("id").asString();
        JsonNode rest = fx.get(fx.ana, path() + "?limit=1&after=" + firstId).json();
        assertThat(rest.path("scheduled_messages")).hasSize(1);
        assertThat(rest.path("has_next_page").asBoolean()).isFalse();

        JsonNode one = fx.get(fx.ana, path() + "/" + id).json();
        assertThat(one.path("id").asString()).isEqualTo(id);
        assertThat(one.path("agent_id").asString()).isEqualTo(agent);
        assertThat(one.at("/message/messages/0/role").asString()).isEqualTo("user");
        assertThat(one.at("/message/messages/0/content").asString()).isEqualTo("Generate your daily summary report");
        assertThat(one.at("/schedule/type").asString()).isEqualTo("one-time");
        assertThat(one.at("/schedule/scheduled_at").asLong()).isEqualTo(at.toEpochMilli());
        assertThat(Instant.parse(one.path("next_scheduled_time").asString())).isEqualTo(at);
        JsonNode cron = fx.get(fx.ana, path() + "/" + recurring.json().path("id").asString()).json();
        assertThat(cron.path("schedule").toString()).isEqualTo("{\"type\":\"recurring\",\"cron_expression\":\"0 9 * * 1-5\"}");

        ServerFixture.Response deleted = fx.delete(fx.ana, path() + "/" + id);
        assertThat(deleted.status()).as(deleted.text()).isEqualTo(200);
        assertThat(deleted.json().path("success").asBoolean()).isTrue();
        assertThat(fx.store.schedules().get("ana", id).orElseThrow().active()).as("cancelled: it never fires").isFalse();
        assertThat(fx.get(fx.ana, path() + "/" + id).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ana, path() + "/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, path()).json().path("scheduled_messages")).hasSize(1);
    }

    @Test
    void badInputIsA422NamingTheFieldAndNothingIsScheduled() {
        Instant later = Instant.now().plus(Duration.ofHours(1));
        Map<String, Object> cases = new java.util.LinkedHashMap<>();
        cases.put("schedule", obj("messages", List.of(obj("role", "user", "content", "hi"))));
        cases.put("messages", obj("schedule", oneTime(later)));
        cases.put("scheduled_at", body("hi", oneTime(Instant.now().minus(Duration.ofMinutes(5)))));
        cases.put("scheduled_at ", body("hi", Map.of("type", "one-time", "scheduled_at", "tomorrow")));
        cases.put("cron_expression", body("hi", Map.of("type", "recurring", "cron_expression", "every day")));
        cases.put("cron_expression ", body("hi", Map.of("type", "recurring", "cron_expression", "*/30 * * * *")));
        cases.put("type", body("hi", Map.of("type", "weekly", "scheduled_at", later.toEpochMilli())));
        cases.put("role", obj("messages", List.of(obj("role", "assistant", "content", "hi")), "schedule", oneTime(later)));
        cases.put("callback_url", obj("messages", List.of(obj("role", "user", "content", "hi")), "schedule", oneTime(later),
                "callback_url", "https://example.com/hook"));
        cases.put("max_steps", obj("messages", List.of(obj("role", "user", "content", "hi")), "schedule", oneTime(later),
                "max_steps", 3));
        for (Map.Entry<String, Object> c : cases.entrySet()) {
            ServerFixture.Response r = fx.post(fx.ana, path(), c.getValue());
            assertThat(r.status()).as("%s: %s", c.getKey(), r.text()).isEqualTo(422);
            assertThat(r.json().path("detail").get(0).path("loc").toString()).as(r.text()).contains("\"" + c.getKey().strip() + "\"");
        }
        ServerFixture.Response tooOften = fx.post(fx.ana, path(), body("hi", Map.of("type", "recurring",
                "cron_expression", "*/30 * * * *")));
        assertThat(tooOften.text()).as("the server's minimum interval").contains("once every 60 minutes");
        assertThat(fx.post(fx.ana, path(), "{not json").status()).isEqualTo(422);
        assertThat(fx.store.schedules().list(scope)).as("nothing was scheduled").isEmpty();
    }

    @Test
    void anotherUsersKeyGets404AndChangesNothing() {
        String id = fx.post(fx.ana, path(), body("ana's reminder", oneTime(Instant.now().plus(Duration.ofHours(1)))))
                .json().path("id").asString();
        String bens = fx.agent(fx.ben, "bens");

        assertThat(fx.get(fx.ben, path()).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, path() + "/" + id).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, path() + "/" + id).status()).isEqualTo(404);
        ServerFixture.Response post = fx.post(fx.ben, path(), body("ben was here", oneTime(Instant.now().plus(Duration.ofHours(1)))));
        assertThat(post.status()).isEqualTo(404);
        // ana's schedule id through ben's own agent is not found either
        ServerFixture.Response through = fx.get(fx.ben, "/v1/agents/" + bens + "/schedule/" + id);
        assertThat(through.status()).isEqualTo(404);
        assertThat(through.text()).doesNotContain("ana's reminder");
        assertThat(fx.delete(fx.ben, "/v1/agents/" + bens + "/schedule/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/agents/" + bens + "/schedule").json().path("scheduled_messages")).isEmpty();

        assertThat(fx.store.schedules().list(scope)).singleElement().satisfies(s -> {
            assertThat(s.active()).isTrue();
            assertThat(s.message()).isEqualTo("ana's reminder");
        });
        assertThat(fx.store.schedules().list("ben")).isEmpty();
    }
}

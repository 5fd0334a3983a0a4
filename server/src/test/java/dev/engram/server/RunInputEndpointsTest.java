package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Run;
import dev.engram.memory.RunStatus;
import dev.engram.memory.Step;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A run's messages begin with the input that started it, as Letta's do ({@code GET /v1/runs/{id}/messages}; the input
 * is its first step's, as Letta stores it with the first step), and a scheduled message's turn is a run with its steps
 * like any other turn. Another user's key gets 404; bad input a 422 and nothing changed.
 */
class RunInputEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir, b -> b.scheduleInterval(Duration.ofMillis(50)));
        agent = fx.agent(fx.ana, "helper");
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private String send(String text) {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage(text));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("usage").path("run_ids").path(0).asString();
    }

    private static List<String> types(JsonNode messages) {
        return messages.valueStream().map(m -> m.path("message_type").asString()).toList();
    }

    @Test
    void aRunsMessagesBeginWithTheUserMessageThatStartedIt() {
        String first = send("Hello, I am Ana.");
        String second = send("What is my name?");

        JsonNode messages = fx.get(fx.ana, "/v1/runs/" + second + "/messages").json();
        assertThat(types(messages).getFirst()).isEqualTo("user_message");
        assertThat(messages.get(0).path("content").toString()).contains("What is my name?");
        assertThat(types(messages)).contains("assistant_message");
        assertThat(messages.toString()).as("only this run's input").doesNotContain("Hello, I am Ana.");
        assertThat(messages.valueStream().map(m -> m.path("run_id").asString()).distinct().toList()).containsExactly(second);
        JsonNode newestFirst = fx.get(fx.ana, "/v1/runs/" + second + "/messages?order=desc").json();
        assertThat(types(newestFirst).getLast()).isEqualTo("user_message");
        assertThat(fx.get(fx.ana, "/v1/runs/" + first + "/messages").json().get(0).path("content").toString())
                .contains("Hello, I am Ana.");

        // The input is the first step's, as Letta stores it with the first step.
        Step step = fx.store.runs().steps("ana", second).getFirst();
        JsonNode stepMessages = fx.get(fx.ana, "/v1/steps/" + step.id() + "/messages").json();
        assertThat(types(stepMessages).getFirst()).isEqualTo("user_message");

        // Bad input is a 422; another user's key sees nothing of the run.
        assertThat(fx.get(fx.ana, "/v1/runs/" + second + "/messages?order_by=name").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/runs/" + second + "/messages?limit=-1").status()).isEqualTo(422);
        ServerFixture.Response other = fx.get(fx.ben, "/v1/runs/" + second + "/messages");
        assertThat(other.status()).isEqualTo(404);
        assertThat(other.text()).doesNotContain("What is my name?");
        assertThat(fx.get(fx.ben, "/v1/steps/" + step.id() + "/messages").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/runs/" + second + "/messages").json()).isEqualTo(messages);
    }

    @Test
    void aScheduledTurnIsARunWithItsStepsLikeAnyOtherTurn() throws InterruptedException {
        Instant at = Instant.now().plusMillis(300);
        ServerFixture.Response scheduled = fx.post(fx.ana, "/v1/agents/" + agent + "/schedule", obj("messages",
                List.of(obj("role", "user", "content", "Write the daily summary")),
                "schedule", Map.of("type", "one-time", "scheduled_at", at.toEpochMilli())));
        assertThat(scheduled.status()).as(scheduled.text()).isEqualTo(201);

        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<Run> runs = fx.store.runs().list("ana");
        while (runs.stream().noneMatch(r -> r.status() == RunStatus.COMPLETED)) {
            assertThat(System.nanoTime()).as("waiting for the scheduled turn's run").isLessThan(deadline);
            Thread.sleep(20);
            runs = fx.store.runs().list("ana");
        }
        Run run = runs.getFirst();
        assertThat(run.agentId()).isEqualTo(agent);
        assertThat(run.stopReason()).isEqualTo("end_turn");

        JsonNode listed = fx.get(fx.ana, "/v1/runs/?agent_id=" + agent).json();
        assertThat(listed.findValuesAsString("id")).containsExactly(run.id());
        JsonNode steps = fx.get(fx.ana, "/v1/runs/" + run.id() + "/steps").json();
        assertThat(steps.size()).isPositive();
        assertThat(steps.findValuesAsString("run_id")).containsOnly(run.id());
        assertThat(fx.get(fx.ana, "/v1/steps/?agent_id=" + agent).json().findValuesAsString("run_id")).contains(run.id());
        JsonNode messages = fx.get(fx.ana, "/v1/runs/" + run.id() + "/messages").json();
        assertThat(types(messages).getFirst()).isEqualTo("user_message");
        assertThat(messages.get(0).path("content").toString()).contains("Write the daily summary");
        assertThat(types(messages)).contains("assistant_message");
        assertThat(fx.get(fx.ana, "/v1/runs/" + run.id() + "/usage").json().path("total_tokens").asInt()).isPositive();

        assertThat(fx.get(fx.ben, "/v1/runs/" + run.id()).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/runs/" + run.id() + "/steps").status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/runs/").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/runs/?agent_id=" + agent + "&statuses=finished").status()).isEqualTo(422);
    }
}

package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.JobStatus;
import dev.engram.memory.Scope;
import dev.engram.memory.Step;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Every turn is a run with its steps: {@code /v1/runs} (list, active, retrieve, delete, messages, usage, metrics,
 * steps, trace), {@code /v1/steps} (list, retrieve, messages, metrics, trace, feedback), {@code /v1/telemetry} and
 * {@code POST /v1/agents/{id}/messages/async}. Another user's key gets 404; bad input a 4xx and nothing changed.
 */
class RunStepEndpointsTest {
    private static final String CALL = "call {\"name\": \"block\", \"arguments\": {\"operation\": \"append\", \"label\": \"human\", "
            + "\"text\": \" Likes tea.\"}}";

    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
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

    @Test
    void aJsonTurnIsARunWhoseStepsShowWhatTheModelWasAskedAndAnswered() {
        String run = send(CALL);
        List<Step> stored = fx.store.runs().steps("ana", run);
        assertThat(stored).isNotEmpty();

        ServerFixture.Response steps = fx.get(fx.ana, "/v1/runs/" + run + "/steps?order=asc");
        assertThat(steps.status()).as(steps.text()).isEqualTo(200);
        assertThat(steps.json()).hasSize(stored.size());
        JsonNode first = steps.json().get(0);
        assertThat(first.path("id").asString()).startsWith("step-");
        assertThat(first.path("run_id").asString()).isEqualTo(run);
        assertThat(first.path("agent_id").asString()).isEqualTo(agent);
        assertThat(first.path("model").asString()).isEqualTo("test:echo");
        assertThat(first.path("provider_name").asString()).isEqualTo("test");
        assertThat(first.path("status").asString()).isEqualTo("success");
        assertThat(first.path("total_tokens").asInt()).isEqualTo(first.path("prompt_tokens").asInt()
                + first.path("completion_tokens").asInt());
        assertThat(steps.json().get(stored.size() - 1).path("stop_reason").asString()).isEqualTo("end_turn");

        String step = first.path("id").asString();
        assertThat(fx.get(fx.ana, "/v1/steps/" + step).json().path("id").asString()).isEqualTo(step);
        JsonNode trace = fx.get(fx.ana, "/v1/steps/" + step + "/trace").json();
        assertThat(trace.path("step_id").asString()).isEqualTo(step);
        assertThat(trace.path("request_json").path("message_ids").size()).isPositive();
        assertThat(trace.path("request_json").path("tools").toString()).contains("block");
        assertThat(trace.path("response_json").path("tool_calls").path(0).path("name").asString()).isEqualTo("block");
        assertThat(fx.get(fx.ana, "/v1/telemetry/" + step).json()).isEqualTo(trace);
        JsonNode metrics = fx.get(fx.ana, "/v1/steps/" + step + "/metrics").json();
        assertThat(metrics.path("step_ns").asLong()).isGreaterThanOrEqualTo(metrics.path("llm_request_ns").asLong());
        JsonNode messages = fx.get(fx.ana, "/v1/steps/" + step + "/messages").json();
        assertThat(messages.findValuesAsString("message_type")).contains("tool_call_message", "tool_return_message");
        assertThat(messages.findValuesAsString("step_id")).as("each message names its step").containsOnly(step)
                .hasSize(messages.size());

        JsonNode runMessages = fx.get(fx.ana, "/v1/runs/" + run + "/messages").json();
        assertThat(runMessages.size()).isGreaterThanOrEqualTo(messages.size());
        for (JsonNode m : runMessages) {
            String storedBy = stored.stream().filter(s -> s.messageIds().contains(Long.parseLong(m.path("id").asString()
                    .substring("message-".length())))).findFirst().orElseThrow().id();
            assertThat(m.path("step_id").asString()).as("the step that stored %s", m.path("id")).isEqualTo(storedBy);
            assertThat(m.path("run_id").asString()).isEqualTo(run);
        }
        assertThat(runMessages.findValuesAsString("step_id")).as("the run's steps, each its own messages")
                .containsAll(stored.stream().map(Step::id).toList());
        JsonNode usage = fx.get(fx.ana, "/v1/runs/" + run + "/usage").json();
        assertThat(usage.path("prompt_tokens").asInt()).isEqualTo(stored.stream().mapToInt(Step::promptTokens).sum());
        JsonNode runMetrics = fx.get(fx.ana, "/v1/runs/" + run + "/metrics").json();
        assertThat(runMetrics.path("num_steps").asInt()).isEqualTo(stored.size());
        assertThat(runMetrics.path("tools_used").toString()).contains("block");
        assertThat(fx.get(fx.ana, "/v1/runs/" + run + "/trace").json()).hasSize(stored.size());

        // another user's key sees none of it
        for (String path : List.of("/v1/runs/" + run + "/steps", "/v1/runs/" + run + "/usage", "/v1/runs/" + run + "/metrics",
                "/v1/runs/" + run + "/messages", "/v1/runs/" + run + "/trace", "/v1/steps/" + step, "/v1/steps/" + step + "/trace",
                "/v1/steps/" + step + "/messages", "/v1/steps/" + step + "/metrics", "/v1/telemetry/" + step)) {
            assertThat(fx.get(fx.ben, path).status()).as(path).isEqualTo(404);
        }
        assertThat(fx.get(fx.ben, "/v1/steps/").json()).isEmpty();
        assertThat(fx.get(fx.ben, "/v1/runs/").json()).isEmpty();
    }

    @Test
    void aStreamedTurnIsARunWithItsStepsToo() {
        List<String> events = fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", obj("input", CALL));
        String run = ServerFixture.JSON.readTree(events.getFirst()).path("run_id").asString();
        assertThat(fx.store.runs().steps("ana", run)).hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(s -> assertThat(s.runId()).isEqualTo(run));
    }

    @Test
    void runsAreListedWithLettasFiltersAndABadFilterIsA422() {
        String first = send("one");
        String second = send("two");
        ServerFixture.Response all = fx.get(fx.ana, "/v1/runs/");
        assertThat(all.json().findValuesAsString("id")).containsExactly(second, first);
        assertThat(fx.get(fx.ana, "/v1/runs/?order=asc&limit=1").json().findValuesAsString("id")).containsExactly(first);
        assertThat(fx.get(fx.ana, "/v1/runs/?after=" + second).json().findValuesAsString("id")).containsExactly(first);
        assertThat(fx.get(fx.ana, "/v1/runs/?agent_id=" + agent + "&statuses=completed&stop_reason=end_turn")
                .json()).hasSize(2);
        assertThat(fx.get(fx.ana, "/v1/runs/?statuses=running").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/runs/?background=true").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/runs/?agent_ids=agent-other").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/runs/active").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/runs/?statuses=done").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/runs/?stop_reason=finished").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/runs/?order_by=name").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/steps/?start_date=yesterday").status()).isEqualTo(422);

        assertThat(fx.get(fx.ana, "/v1/steps/?agent_id=" + agent).json().size())
                .isEqualTo(fx.store.runs().steps("ana").size());
        assertThat(fx.get(fx.ana, "/v1/steps/?model=other").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/steps/?start_date=2000-01-01&end_date=2999-01-01").json()).isNotEmpty();
    }

    @Test
    void feedbackIsSetAndFilteredAndBadFeedbackChangesNothing() {
        String run = send("hello");
        String step = fx.store.runs().steps("ana", run).getFirst().id();
        ServerFixture.Response liked = fx.patch(fx.ana, "/v1/steps/" + step + "/feedback",
                obj("feedback", "positive", "tags", List.of("kind")));
        assertThat(liked.status()).as(liked.text()).isEqualTo(200);
        assertThat(liked.json().path("feedback").asString()).isEqualTo("positive");
        assertThat(liked.json().path("tags").path(0).asString()).isEqualTo("kind");
        assertThat(fx.get(fx.ana, "/v1/steps/?feedback=positive").json().findValuesAsString("id")).containsExactly(step);
        assertThat(fx.get(fx.ana, "/v1/steps/?has_feedback=false").json().findValuesAsString("id")).doesNotContain(step);
        assertThat(fx.get(fx.ana, "/v1/steps/?tags=kind").json().findValuesAsString("id")).containsExactly(step);

        assertThat(fx.patch(fx.ana, "/v1/steps/" + step + "/feedback", obj("feedback", "meh")).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ben, "/v1/steps/" + step + "/feedback", obj("feedback", "negative")).status()).isEqualTo(404);
        assertThat(fx.store.runs().step("ana", step).orElseThrow().feedback()).isEqualTo("positive");
    }

    @Test
    void aRunIsDeletedWithItsStepsButNotByAnotherUser() {
        String run = send("hello");
        assertThat(fx.delete(fx.ben, "/v1/runs/" + run).status()).isEqualTo(404);
        assertThat(fx.store.runs().get("ana", run)).isPresent();
        ServerFixture.Response deleted = fx.delete(fx.ana, "/v1/runs/" + run);
        assertThat(deleted.status()).as(deleted.text()).isEqualTo(200);
        assertThat(deleted.json().path("id").asString()).isEqualTo(run);
        assertThat(fx.get(fx.ana, "/v1/runs/" + run).status()).isEqualTo(404);
        assertThat(fx.store.runs().steps("ana")).isEmpty();
    }

    @Test
    void anAsyncMessageAnswersItsRunAtOnceAndTheRunsEventsAreStreamed() throws InterruptedException {
        ServerFixture.Response started = fx.post(fx.ana, "/v1/agents/" + agent + "/messages/async", fx.userMessage("hello async"));
        assertThat(started.status()).as(started.text()).isEqualTo(200);
        String run = started.json().path("id").asString();
        assertThat(run).startsWith("run-");
        assertThat(started.json().path("status").asString()).isIn("created", "running", "completed");
        assertThat(started.json().path("background").asBoolean()).isTrue();
        for (int i = 0; i < 200 && !fx.get(fx.ana, "/v1/runs/" + run).json().path("status").asString().equals("completed"); i++) {
            Thread.sleep(50);
        }
        assertThat(fx.get(fx.ana, "/v1/runs/" + run).json().path("status").asString()).isEqualTo("completed");
        List<String> events = fx.stream(fx.ana, "/v1/runs/" + run + "/stream", obj("starting_after", 0));
        assertThat(events.getLast()).isEqualTo("[DONE]");
        assertThat(String.join("\n", events)).contains("hello async").contains("\"stop_reason\":\"end_turn\"");
        assertThat(fx.store.runs().steps("ana", run)).isNotEmpty();
        assertThat(fx.get(fx.ben, "/v1/runs/" + run).status()).isEqualTo(404);

        int runs = fx.store.runs().list("ana").size();
        ServerFixture.Response callback = fx.post(fx.ana, "/v1/agents/" + agent + "/messages/async",
                obj("messages", List.of(obj("role", "user", "content", "hi")), "callback_url", "http://127.0.0.1:9/"));
        assertThat(callback.status()).isEqualTo(400);
        assertThat(callback.detail()).contains("callback_url");
        assertThat(fx.post(fx.ben, "/v1/agents/" + agent + "/messages/async", fx.userMessage("x")).status()).isEqualTo(404);
        assertThat(fx.store.runs().list("ana")).hasSize(runs);
    }

    @Test
    void jobsAreListedActiveCancelledAndDeletedAsTheirUsers() {
        String active = fx.store.jobs().create(Scope.of("ana", agent), "memory_add", "{}").id();
        String ended = fx.store.jobs().create(Scope.of("ana", agent), "memory_add", "{}").id();
        fx.store.jobs().finish("ana", ended, JobStatus.COMPLETED, "{}", "");
        assertThat(fx.get(fx.ana, "/v1/jobs/active").json().findValuesAsString("id")).containsExactly(active);
        assertThat(fx.get(fx.ana, "/v1/jobs/?active=true").json().findValuesAsString("id")).containsExactly(active);
        assertThat(fx.get(fx.ben, "/v1/jobs/active").json()).isEmpty();

        assertThat(fx.patch(fx.ben, "/v1/jobs/" + active + "/cancel", obj()).status()).isEqualTo(404);
        ServerFixture.Response refused = fx.patch(fx.ana, "/v1/jobs/" + ended + "/cancel", obj());
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.detail()).contains("has already ended");
        assertThat(fx.store.jobs().get("ana", ended).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
        ServerFixture.Response cancelled = fx.patch(fx.ana, "/v1/jobs/" + active + "/cancel", obj());
        assertThat(cancelled.status()).as(cancelled.text()).isEqualTo(200);
        assertThat(cancelled.json().path("status").asString()).isEqualTo("cancelled");
        assertThat(fx.get(fx.ana, "/v1/jobs/active").json()).isEmpty();

        assertThat(fx.delete(fx.ben, "/v1/jobs/" + ended).status()).isEqualTo(404);
        assertThat(fx.store.jobs().get("ana", ended)).isPresent();
        assertThat(fx.delete(fx.ana, "/v1/jobs/" + ended).json().path("id").asString()).isEqualTo(ended);
        assertThat(fx.get(fx.ana, "/v1/jobs/" + ended).status()).isEqualTo(404);
    }
}

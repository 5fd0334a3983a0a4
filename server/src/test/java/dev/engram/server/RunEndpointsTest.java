package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MessageQuery;
import dev.engram.memory.Run;
import dev.engram.memory.RunStatus;
import dev.engram.memory.Scope;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Runs and streams a client can resume: every streamed event carries its {@code run_id} and {@code seq_id}; a
 * background run goes on when its client goes away and its events are kept; {@code POST /v1/runs/{id}/stream} and
 * {@code POST /v1/conversations/{id}/stream} replay them after {@code starting_after} and follow the live run to its
 * end; {@code GET /v1/runs/{id}} shows the run. Another user's key gets 404; bad input a 400 or 422.
 */
class RunEndpointsTest {
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

    private static List<JsonNode> json(List<String> events) {
        assertThat(events.getLast()).isEqualTo("[DONE]");
        return events.subList(0, events.size() - 1).stream().map(ServerFixture.JSON::readTree).toList();
    }

    private List<String> background(String text, boolean tokens) {
        return fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", obj("input", text, "background", true,
                "stream_tokens", tokens));
    }

    @Test
    void everyStreamedEventCarriesItsRunIdAndASeqIdFromOneAndTheRunIsShown() {
        List<JsonNode> events = json(fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream",
                obj("input", "hello", "stream_tokens", true)));
        String run = events.getFirst().path("run_id").asString();
        assertThat(run).startsWith("run-");
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i).path("run_id").asString()).as(events.get(i).toString()).isEqualTo(run);
            assertThat(events.get(i).path("seq_id").asLong()).as(events.get(i).toString()).isEqualTo(i + 1);
        }
        assertThat(events.get(events.size() - 2).path("message_type").asString()).isEqualTo("stop_reason");
        assertThat(events.getLast().path("message_type").asString()).isEqualTo("usage_statistics");
        assertThat(events.getLast().path("run_ids")).containsExactly(ServerFixture.JSON.getNodeFactory().stringNode(run));

        ServerFixture.Response shown = fx.get(fx.ana, "/v1/runs/" + run);
        assertThat(shown.status()).as(shown.text()).isEqualTo(200);
        assertThat(shown.json().path("id").asString()).isEqualTo(run);
        assertThat(shown.json().path("agent_id").asString()).isEqualTo(agent);
        assertThat(shown.json().path("status").asString()).isEqualTo("completed");
        assertThat(shown.json().path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(shown.json().path("background").asBoolean()).isFalse();
        assertThat(shown.json().path("conversation_id").isNull()).isTrue();
        assertThat(shown.json().path("completed_at").isString()).isTrue();

        // a JSON answer is a run too: each message and the usage name it
        ServerFixture.Response answer = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("plain"));
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        String plain = answer.json().path("usage").path("run_ids").get(0).asString();
        assertThat(plain).startsWith("run-").isNotEqualTo(run);
        answer.json().path("messages").forEach(m -> assertThat(m.path("run_id").asString()).isEqualTo(plain));
        assertThat(fx.get(fx.ana, "/v1/runs/" + plain).json().path("status").asString()).isEqualTo("completed");
    }

    @Test
    void aResumeAfterTheEndGetsExactlyTheEventsAfterStartingAfterAndEnds() {
        List<String> original = background("call {\"name\": \"block\", \"arguments\": {\"label\": \"human\"}}", true);
        List<JsonNode> events = json(original);
        String run = events.getFirst().path("run_id").asString();
        assertThat(events.size()).isGreaterThan(6);
        for (int after : new int[] {0, 3, events.size() - 1}) {
            List<String> rest = fx.stream(fx.ana, "/v1/runs/" + run + "/stream", obj("starting_after", after));
            assertThat(rest).as("after " + after).isEqualTo(original.subList(after, original.size()));
        }
        assertThat(fx.stream(fx.ana, "/v1/runs/" + run + "/stream", obj("starting_after", events.size())))
                .containsExactly("[DONE]");
        // the body is optional, as Letta's: from the start
        assertThat(fx.stream(fx.ana, "/v1/runs/" + run + "/stream", "")).isEqualTo(original);
        ServerFixture.Response shown = fx.get(fx.ana, "/v1/runs/" + run);
        assertThat(shown.json().path("background").asBoolean()).isTrue();
        assertThat(shown.json().path("stop_reason").asString()).isEqualTo("end_turn");
    }

    @Test
    void toolCallDeltasRepeatTheCallsIdAndNameOnEveryChunk() {
        List<JsonNode> calls = json(background("call {\"name\": \"block\", \"arguments\": {\"label\": \"human\"}}", true))
                .stream().filter(e -> e.path("message_type").asString().equals("tool_call_message")).toList();
        assertThat(calls.size()).isGreaterThan(2);
        String callId = calls.getFirst().path("tool_call").path("tool_call_id").asString();
        assertThat(callId).isNotEmpty();
        for (JsonNode c : calls) {
            assertThat(c.path("tool_call").path("tool_call_id").asString()).as(c.toString()).isEqualTo(callId);
            assertThat(c.path("tool_call").path("name").asString()).as(c.toString()).isEqualTo("block");
        }
    }

    @Test
    void aBackgroundRunGoesOnWhenItsClientGoesAwayAndItsConversationStreamFollowsItToTheEnd() throws Exception {
        String body = ServerFixture.JSON.writeValueAsString(obj("input", "sleep 1200 still here", "background", true));
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), fx.server.port())) {
            OutputStream out = socket.getOutputStream();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            out.write(("POST /v1/agents/" + agent + "/messages/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + fx.ana + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.write(bytes);
            out.flush();
            Thread.sleep(300);
        }
        // the client is gone while the model works; another connection picks the run up and follows it
        List<String> resumed = fx.stream(fx.ana, "/v1/conversations/default/stream", obj("agent_id", agent));
        List<JsonNode> events = json(resumed);
        assertThat(events).extracting(e -> e.path("message_type").asString()).contains("assistant_message", "stop_reason");
        assertThat(events.stream().filter(e -> e.path("message_type").asString().equals("assistant_message"))
                .map(e -> e.path("content").asString())).containsExactly("You said: still here");
        String run = events.getFirst().path("run_id").asString();
        Run stored = fx.store.runs().get("ana", run).orElseThrow();
        assertThat(stored.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(stored.background()).isTrue();
        assertThat(fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all()).stream()
                .anyMatch(m -> m.toolCalls().stream().anyMatch(c -> c.arguments().contains("You said: still here"))))
                .as("the turn's reply was stored").isTrue();
        // the run ended: the conversation has no active run, and Letta's answer says so
        ServerFixture.Response none = fx.post(fx.ana, "/v1/conversations/default/stream", obj("agent_id", agent));
        assertThat(none.status()).as(none.text()).isEqualTo(400);
        assertThat(none.detail()).isEqualTo("No active runs found for this conversation.");
    }

    @Test
    void aLiveRunIsFollowedByASecondClientThatGetsWhatTheFirstGets() throws Exception {
        CompletableFuture<List<String>> first = CompletableFuture.supplyAsync(() -> background("sleep 800 live", true));
        Optional<Run> live = Optional.empty();
        for (int i = 0; i < 100 && live.isEmpty(); i++) {
            Thread.sleep(20);
            live = fx.store.runs().latest(Scope.of("ana", agent), "default").filter(r -> r.status().isActive());
        }
        assertThat(live).isPresent();
        List<String> second = fx.stream(fx.ana, "/v1/runs/" + live.get().id() + "/stream",
                obj("starting_after", 0, "include_pings", false, "poll_interval", 0.02));
        assertThat(second).isEqualTo(first.get());
    }

    @Test
    void anotherUsersKeyAndUnknownRunsGet404() {
        String run = json(background("mine", false)).getFirst().path("run_id").asString();
        assertThat(fx.get(fx.ben, "/v1/runs/" + run).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/runs/" + run + "/stream", obj()).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/conversations/default/stream", obj("agent_id", agent)).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/conversations/default/stream", obj("agent_id", agent, "run_id", run)).status())
                .isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/runs/run-00000000-0000-0000-0000-000000000000").status()).isEqualTo(404);
        assertThat(fx.post(fx.ana, "/v1/runs/nonsense/stream", obj()).status()).isEqualTo(404);
        assertThat(fx.get(fx.admin, "/v1/runs/" + run).status()).as("an admin key sees its users' runs").isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/runs/" + run).status()).isEqualTo(200);
    }

    @Test
    void badResumesAreRefusedAndChangeNothing() {
        List<String> original = background("kept", false);
        String run = json(original).getFirst().path("run_id").asString();
        int last = original.size() - 1;
        ServerFixture.Response negative = fx.post(fx.ana, "/v1/runs/" + run + "/stream", obj("starting_after", -1));
        assertThat(negative.status()).as(negative.text()).isEqualTo(400);
        ServerFixture.Response beyond = fx.post(fx.ana, "/v1/runs/" + run + "/stream", obj("starting_after", last + 1));
        assertThat(beyond.status()).as(beyond.text()).isEqualTo(400);
        assertThat(beyond.detail()).contains("beyond the last event").contains("seq_id " + last);
        assertThat(fx.post(fx.ana, "/v1/runs/" + run + "/stream", obj("starting_after", "two")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/runs/" + run + "/stream", obj("batch_size", 0)).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/runs/" + run + "/stream", obj("poll_interval", "fast")).status()).isEqualTo(422);
        assertThat(fx.stream(fx.ana, "/v1/runs/" + run + "/stream", obj("starting_after", 0))).isEqualTo(original);

        // a run that did not ask for the background keeps no events: Letta's answer
        String plain = json(fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", obj("input", "foreground")))
                .getFirst().path("run_id").asString();
        ServerFixture.Response foreground = fx.post(fx.ana, "/v1/runs/" + plain + "/stream", obj());
        assertThat(foreground.status()).isEqualTo(400);
        assertThat(foreground.detail()).isEqualTo("Run was not created in background mode, so it cannot be retrieved.");

        ServerFixture.Response idle = fx.post(fx.ana, "/v1/conversations/default/stream", obj("agent_id", agent));
        assertThat(idle.status()).isEqualTo(400);
        assertThat(idle.detail()).isEqualTo("No active runs found for this conversation.");
        assertThat(fx.post(fx.ana, "/v1/conversations/default/stream", obj()).status()).isEqualTo(422);
    }

    @Test
    void aRunKeepsItsNewestEventsOnlyAndAResumeFromBeforeThemIsGone() throws Exception {
        fx.close();
        Files.createDirectories(dir.resolve("small"));
        fx = new ServerFixture(dir.resolve("small"), b -> b.maxRunEvents(3).runRetention(Duration.ofMinutes(5)));
        agent = fx.agent(fx.ana, "helper");
        List<String> original = background("call {\"name\": \"block\", \"arguments\": {\"label\": \"human\"}}", true);
        int total = original.size() - 1;
        String run = json(original).getFirst().path("run_id").asString();
        assertThat(fx.stream(fx.ana, "/v1/runs/" + run + "/stream", obj("starting_after", total - 3)))
                .isEqualTo(original.subList(total - 3, original.size()));
        ServerFixture.Response gone = fx.post(fx.ana, "/v1/runs/" + run + "/stream", obj("starting_after", 1));
        assertThat(gone.status()).as(gone.text()).isEqualTo(410);
        assertThat(gone.detail()).contains("no longer kept");
    }

    @Test
    void theIdsOfStreamedWholeMessagesAndOfAnApprovalRequestAreTheStoredOnes() {
        for (boolean tokens : new boolean[] {false, true}) {
            List<JsonNode> whole = json(fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", obj("input", "ids")));
            JsonNode reply = whole.stream().filter(e -> e.path("message_type").asString().equals("assistant_message"))
                    .findFirst().orElseThrow();
            ServerFixture.Response read = fx.get(fx.ana, "/v1/messages/" + reply.path("id").asString());
            assertThat(read.status()).as(read.text()).isEqualTo(200);

            assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=true", null).status())
                    .isEqualTo(200);
            List<JsonNode> paused = json(fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", obj("input",
                    "call {\"name\": \"block\", \"arguments\": {\"operation\": \"append\", \"label\": \"human\", \"text\": \"Ana\"}}",
                    "stream_tokens", tokens, "background", true)));
            JsonNode request = paused.stream().filter(e -> e.path("message_type").asString().equals("approval_request_message"))
                    .findFirst().orElseThrow();
            assertThat(paused.get(paused.size() - 2).path("stop_reason").asString()).isEqualTo("requires_approval");
            ServerFixture.Response requested = fx.get(fx.ana, "/v1/messages/" + request.path("id").asString());
            assertThat(requested.status()).as("tokens " + tokens + ": " + requested.text()).isEqualTo(200);
            String run = request.path("run_id").asString();
            assertThat(fx.get(fx.ana, "/v1/runs/" + run).json().path("stop_reason").asString()).isEqualTo("requires_approval");
            ServerFixture.Response answered = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("messages", List.of(
                    obj("type", "approval", "approvals", List.of(obj("type", "approval", "approval_request_id",
                            request.path("id").asString(), "tool_call_id", request.path("tool_call").path("tool_call_id").asString(),
                            "approve", true))))));
            assertThat(answered.status()).as(answered.text()).isEqualTo(200);
            assertThat(answered.json().path("usage").path("run_ids").get(0).asString()).isNotEqualTo(run);
            assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=false", null).status())
                    .isEqualTo(200);
        }
    }
}

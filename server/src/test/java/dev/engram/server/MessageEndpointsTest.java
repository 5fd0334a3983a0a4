package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class MessageEndpointsTest {
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

    private static List<String> types(JsonNode messages) {
        return messages.valueStream().map(m -> m.path("message_type").asString()).toList();
    }

    @Test
    void aMessageIsAnsweredWithLettasResponse() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hello"));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        JsonNode messages = r.json().path("messages");
        assertThat(types(messages)).containsExactly("user_message", "assistant_message");
        assertThat(messages.get(1).path("content").asString()).isEqualTo("You said: hello");
        assertThat(messages.get(1).path("id").asString()).startsWith("message-");
        assertThat(r.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(r.json().path("usage").path("step_count").asInt()).isEqualTo(1);
        assertThat(r.json().path("usage").path("total_tokens").asInt()).isEqualTo(15);
    }

    @Test
    void aToolCallShowsAsReasoningToolCallAndToolReturn() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages",
                obj("input", "call {\"name\": \"block\", \"arguments\": {\"operation\": \"view\", \"label\": \"human\"}}"));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        JsonNode messages = r.json().path("messages");
        assertThat(types(messages)).containsExactly("user_message", "reasoning_message", "tool_call_message",
                "tool_return_message", "assistant_message");
        assertThat(messages.get(2).path("tool_call").path("name").asString()).isEqualTo("block");
        assertThat(messages.get(3).path("status").asString()).isEqualTo("success");
        assertThat(messages.get(3).path("tool_call_id").asString()).isEqualTo(messages.get(2).path("tool_call").path("tool_call_id").asString());
        assertThat(messages.get(4).path("content").asString()).startsWith("done: ").contains("unknown");
        assertThat(r.json().path("usage").path("step_count").asInt()).isEqualTo(2);

        ServerFixture.Response plain = fx.post(fx.ana, "/v1/agents/" + agent + "/messages",
                obj("input", "hi", "use_assistant_message", false, "include_return_message_types", List.of("tool_call_message")));
        assertThat(types(plain.json().path("messages"))).containsExactly("tool_call_message");
        assertThat(plain.json().path("messages").get(0).path("tool_call").path("name").asString()).isEqualTo("send_message");
    }

    @Test
    void messagesAreListedNewestFirstAndPaged() {
        for (String text : List.of("one", "two", "three")) {
            fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage(text));
        }
        JsonNode all = fx.get(fx.ana, "/v1/agents/" + agent + "/messages").json();
        assertThat(types(all)).containsExactly("assistant_message", "user_message", "assistant_message", "user_message",
                "assistant_message", "user_message");
        assertThat(all.get(0).path("content").asString()).isEqualTo("You said: three");
        JsonNode page = fx.get(fx.ana, "/v1/agents/" + agent + "/messages?limit=2").json();
        assertThat(page).hasSize(2);
        JsonNode next = fx.get(fx.ana, "/v1/agents/" + agent + "/messages?limit=2&after=" + page.get(1).path("id").asString()).json();
        assertThat(next.get(0).path("content").asString()).isEqualTo("You said: two");
        JsonNode asc = fx.get(fx.ana, "/v1/agents/" + agent + "/messages?order=asc&limit=1").json();
        assertThat(asc.get(0).path("content").asString()).isEqualTo("one");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/messages?after=nonsense").status()).isEqualTo(404);
    }

    @Test
    void aStreamSendsWholeStoredMessagesThenStopReasonUsageAndDone() {
        List<String> events = fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", fx.userMessage("streamed"));
        assertThat(events.getLast()).isEqualTo("[DONE]");
        List<JsonNode> json = events.subList(0, events.size() - 1).stream().map(ServerFixture.JSON::readTree).toList();
        assertThat(json).extracting(j -> j.path("message_type").asString())
                .containsExactly("user_message", "assistant_message", "stop_reason", "usage_statistics");
        assertThat(json.get(1).path("content").asString()).isEqualTo("You said: streamed");
        JsonNode listed = fx.get(fx.ana, "/v1/agents/" + agent + "/messages?limit=1").json();
        assertThat(listed.get(0).path("id").asString()).isEqualTo(json.get(1).path("id").asString());

        List<String> viaFlag = fx.stream(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", "flag", "streaming", true));
        assertThat(viaFlag.getLast()).isEqualTo("[DONE]");
    }

    @Test
    void aTokenStreamSendsFragmentsAndPings() {
        List<String> events = fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream",
                obj("input", "sleep 300 tokens please", "stream_tokens", true, "include_pings", true));
        List<JsonNode> json = events.subList(0, events.size() - 1).stream().map(ServerFixture.JSON::readTree).toList();
        assertThat(json).extracting(j -> j.path("message_type").asString()).contains("reasoning_message", "assistant_message",
                "ping", "stop_reason", "usage_statistics");
        String reply = json.stream().filter(j -> j.path("message_type").asString().equals("assistant_message"))
                .map(j -> j.path("content").asString()).reduce("", String::concat);
        assertThat(reply).isEqualTo("You said: tokens please");
        assertThat(json.stream().filter(j -> j.path("message_type").asString().equals("assistant_message")).count()).isGreaterThan(1);
        assertThat(json.stream().filter(j -> j.path("message_type").asString().equals("assistant_message"))
                .map(j -> j.path("id").asString()).distinct()).hasSize(1);
    }

    @Test
    void aFailingModelIsA502WithoutATraceAndAStreamEndsWithAnErrorEvent() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("fail"));
        assertThat(r.status()).isEqualTo(502);
        // The model's own error text goes to the log only: a provider's (or a script file's) words are no client's to read.
        assertThat(r.detail()).startsWith("The agent's model failed (incident ").doesNotContain("told to fail")
                .doesNotContain("at dev.engram").doesNotContain("Exception");
        List<String> events = fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", fx.userMessage("fail"));
        assertThat(events).anySatisfy(e -> assertThat(e).startsWith("error:").contains("The agent's model failed")
                .doesNotContain("told to fail"));
        assertThat(events.getLast()).isEqualTo("[DONE]");
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("after")).status()).isEqualTo(200);
    }

    @Test
    void aTurnThatCannotAskForApprovalRunsOnTheRequestsThreadAndOneThatMayOnItsOwn() {
        ServerFixture.Response inline = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("thread"));
        assertThat(inline.json().path("messages").get(1).path("content").asString()).endsWith("(virtual)")
                .doesNotContain("engram-turn");
        fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=true", null);
        ServerFixture.Response own = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("thread"));
        // a turn that may wait for an approval waits on a virtual thread, which holds no platform thread meanwhile
        assertThat(own.json().path("messages").get(1).path("content").asString()).startsWith("thread engram-approval-turn-")
                .endsWith("(virtual)");
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=false", null).status()).isEqualTo(200);
        ServerFixture.Response again = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("thread"));
        assertThat(again.json().path("messages").get(1).path("content").asString()).endsWith("(virtual)");
    }

    @Test
    void anApprovalRuleAddedDuringATurnOnTheRequestsThreadDeniesTheCallInsteadOfWaiting() throws Exception {
        String call = "sleep 3000 call {\"name\": \"block\", \"arguments\": {\"operation\": \"append\", \"label\": \"human\", \"text\": \"Ana\"}}";
        java.util.concurrent.CompletableFuture<ServerFixture.Response> turn = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", call)));
        // wait until the turn has started (on its request's thread: no rule asks yet) and its model is sleeping; the
        // rule below must be in place before the model's 3 s are up, which leaves a loaded machine room for the PATCH
        dev.engram.agents.Agent running = fx.server.runtime().current("ana", agent);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (!running.isBusy() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(running.isBusy()).isTrue();
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=true", null).status()).isEqualTo(200);

        ServerFixture.Response r = turn.get(30, java.util.concurrent.TimeUnit.SECONDS);

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("end_turn");
        JsonNode denied = java.util.stream.StreamSupport.stream(r.json().path("messages").spliterator(), false)
                .filter(m -> m.path("message_type").asString().equals("tool_return_message")).findFirst().orElseThrow();
        assertThat(denied.path("tool_return").asString()).contains("not approved").contains("approval rules changed during this turn");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/human").json().path("value").asString())
                .doesNotContain("Ana");
        // the next message's turn asks
        ServerFixture.Response next = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", call.substring(11)));
        assertThat(next.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("requires_approval");
    }

    @Test
    void aToolThatNeedsApprovalPausesTheTurnUntilTheClientAnswers() {
        ServerFixture.Response rule = fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=true", null);
        assertThat(rule.status()).as(rule.text()).isEqualTo(200);
        String call = "call {\"name\": \"block\", \"arguments\": {\"operation\": \"append\", \"label\": \"human\", \"text\": \"Ana\"}}";
        ServerFixture.Response paused = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", call));
        assertThat(paused.status()).as(paused.text()).isEqualTo(200);
        assertThat(paused.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("requires_approval");
        JsonNode request = paused.json().path("messages").get(paused.json().path("messages").size() - 1);
        assertThat(request.path("message_type").asString()).isEqualTo("approval_request_message");
        assertThat(types(paused.json().path("messages"))).doesNotContain("tool_call_message");
        String callId = request.path("tool_call").path("tool_call_id").asString();

        ServerFixture.Response busy = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hello?"));
        assertThat(busy.status()).isEqualTo(409);
        assertThat(busy.detail()).contains("waiting for the approval");

        ServerFixture.Response done = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("messages", List.of(
                obj("type", "approval", "approvals", List.of(obj("type", "approval", "tool_call_id", callId, "approve", true))))));
        assertThat(done.status()).as(done.text()).isEqualTo(200);
        assertThat(types(done.json().path("messages"))).containsExactly("tool_return_message", "assistant_message");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/human").json().path("value").asString())
                .endsWith("Ana");

        ServerFixture.Response paused2 = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", call));
        String requestId = paused2.json().path("messages").get(paused2.json().path("messages").size() - 1).path("id").asString();
        ServerFixture.Response wrongId = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("messages", List.of(
                obj("type", "approval", "approve", true, "approval_request_id", "message-999999"))));
        assertThat(wrongId.status()).isEqualTo(400);
        assertThat(wrongId.detail()).contains("does not name the call");
        ServerFixture.Response denied = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("messages", List.of(
                obj("type", "approval", "approve", false, "approval_request_id", requestId, "reason", "not now"))));
        assertThat(denied.status()).as(denied.text()).isEqualTo(200);
        assertThat(denied.json().path("messages").get(0).path("status").asString()).isEqualTo("error");
        assertThat(denied.json().path("messages").get(0).path("tool_return").asString()).contains("not now");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/human").json().path("value").asString())
                .doesNotContain("AnaAna").endsWith("Ana");

        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("messages", List.of(
                obj("type", "approval", "approve", true, "approval_request_id", "message-1")))).status()).isEqualTo(400);
    }

    @Test
    void aRunningTurnIsCancelled() throws Exception {
        CompletableFuture<ServerFixture.Response> slow = CompletableFuture.supplyAsync(
                () -> fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("sleep 5000 slow")));
        ServerFixture.Response cancel;
        long deadline = System.nanoTime() + 10_000_000_000L;
        do {
            Thread.sleep(50);
            cancel = fx.post(fx.ana, "/v1/agents/" + agent + "/messages/cancel", obj());
        } while (!cancel.json().path("cancelled").asBoolean() && System.nanoTime() < deadline);
        assertThat(cancel.json().path("cancelled").asBoolean()).isTrue();
        ServerFixture.Response r = slow.get();
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("cancelled");
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages/cancel", obj()).json().path("cancelled").asBoolean()).isFalse();
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("again")).status()).isEqualTo(200);
    }

    @Test
    void resetTakesEveryMessageOutOfTheContextAndKeepsThemInRecall() {
        fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("remember me"));
        ServerFixture.Response r = fx.patch(fx.ana, "/v1/agents/" + agent + "/reset-messages", obj());
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("message_ids")).isEmpty();
        Scope scope = Scope.of("ana", agent);
        assertThat(fx.store.messages().list(scope, MessageQuery.inContext())).isEmpty();
        assertThat(fx.store.messages().count(scope)).isEqualTo(3); // the user's, the send_message call, its result
    }

    @Test
    void badMessagesAre422AndStoreNothing() {
        String path = "/v1/agents/" + agent + "/messages";
        assertThat(fx.post(fx.ana, path, obj("messages", List.of())).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj()).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("input", "x", "messages", List.of(obj("role", "user", "content", "y")))).status()).isEqualTo(422);
        ServerFixture.Response role = fx.post(fx.ana, path, obj("messages", List.of(obj("role", "system", "content", "x"))));
        assertThat(role.status()).isEqualTo(422);
        assertThat(role.json().path("detail").get(0).path("loc")).extracting(JsonNode::asString)
                .containsExactly("body", "messages", "0", "role");
        assertThat(fx.post(fx.ana, path, obj("messages", List.of(obj("role", "user", "content",
                List.of(obj("type", "image", "url", "x")))))).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("messages", List.of(obj("role", "user"))))).extracting(ServerFixture.Response::status)
                .isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("input", "   ")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, "{\"input\": ").status()).isEqualTo(422);
        assertThat(fx.store.messages().count(Scope.of("ana", agent))).isZero();
        assertThat(fx.post(fx.ana, path, obj("messages", List.of(obj("role", "user", "content",
                List.of(obj("type", "text", "text", "parts"))))))).extracting(r -> r.json().path("messages").get(1).path("content").asString())
                .isEqualTo("You said: parts");
    }

    @Test
    void anotherUsersKeyReachesNoneOfTheAgentsMessages() {
        fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("secret"));
        String base = "/v1/agents/" + agent;
        assertThat(fx.post(fx.ben, base + "/messages", fx.userMessage("hi")).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, base + "/messages/stream", fx.userMessage("hi")).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, base + "/messages").status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, base + "/messages/cancel", obj()).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, base + "/reset-messages", obj()).status()).isEqualTo(404);
        assertThat(fx.store.messages().count(Scope.of("ana", agent))).isEqualTo(3);
    }
}

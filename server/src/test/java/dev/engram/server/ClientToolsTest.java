package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolDefinition;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Client-side tools as Letta Code uses them (issue #29, item 3): the {@code client_tools} of a request are offered to the
 * model for that turn only; a call to one pauses the turn with an {@code approval_request_message} per waiting call and
 * {@code stop_reason: requires_approval}; the client's answers (results of {@code type: "tool"}, decisions of
 * {@code type: "approval"}) are stored as the calls' returns and the turn goes on. Driven by a scripted model that makes
 * real tool calls.
 */
class ClientToolsTest {
    private static final ObjectNode BASH = obj("name", "Bash", "description", "Runs a shell command on the user's machine.",
            "parameters", obj("type", "object", "properties", obj("command", obj("type", "string")), "required", List.of("command")));
    private static final ObjectNode READ = obj("name", "Read", "description", "Reads a file on the user's machine.",
            "parameters", obj("type", "object", "properties", obj("file_path", obj("type", "string"))));

    @TempDir
    Path dir;

    private ServerFixture fx;
    private ScriptedChatModel model;
    private String agent;

    /** A server whose default model plays {@code script}, and an agent of ana's on it. */
    private void start(String script) {
        model = ScriptedChatModel.fromJson(script);
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:script", model)).defaultModel("test:script"));
        agent = fx.agent(fx.ana, "coder");
    }

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private String messages() {
        return "/v1/agents/" + agent + "/messages";
    }

    private static ObjectNode withTools(ObjectNode body, ObjectNode... tools) {
        body.set("client_tools", ServerFixture.JSON.valueToTree(List.of(tools)));
        return body;
    }

    private static ObjectNode approvals(ObjectNode... entries) {
        return obj("messages", List.of(obj("type", "approval", "approvals", List.of(entries))));
    }

    private static ObjectNode result(String callId, Object toolReturn, String status) {
        return obj("type", "tool", "tool_call_id", callId, "tool_return", toolReturn, "status", status,
                "stdout", List.of(), "stderr", List.of());
    }

    private static List<String> types(JsonNode messages) {
        List<String> out = new ArrayList<>();
        messages.forEach(m -> out.add(m.path("message_type").asString()));
        return out;
    }

    private static List<JsonNode> ofType(JsonNode messages, String type) {
        List<JsonNode> out = new ArrayList<>();
        messages.forEach(m -> {
            if (m.path("message_type").asString().equals(type)) {
                out.add(m);
            }
        });
        return out;
    }

    private static String stopReason(ServerFixture.Response r) {
        return r.json().path("stop_reason").path("stop_reason").asString();
    }

    /** The events of a stream as JSON, without {@code [DONE]}. */
    private List<JsonNode> stream(String path, ObjectNode body) {
        List<JsonNode> out = new ArrayList<>();
        for (String data : fx.stream(fx.ana, path, body)) {
            if (!data.equals("[DONE]")) {
                out.add(ServerFixture.JSON.readTree(data));
            }
        }
        return out;
    }

    private static List<String> toolNames(ChatRequest request) {
        return request.tools().stream().map(ToolDefinition::name).toList();
    }

    private long stored() {
        return fx.store.messages().count(Scope.of("ana", agent));
    }

    @Test
    void aClientToolIsOfferedForItsRequestOnlyAndItsCallWaitsForTheClientsResult() {
        start("""
                {"turns": [
                  {"tool_calls": [{"id": "c1", "name": "Bash", "arguments": {"command": "ls"}}]},
                  {"text": "You have one file.", "expect_in_prompt": ["notes.txt"]},
                  {"text": "Hello again."}
                ]}""");
        ServerFixture.Response paused = fx.post(fx.ana, messages(), withTools(fx.userMessage("what is here?"), BASH));
        assertThat(paused.status()).as(paused.text()).isEqualTo(200);
        assertThat(stopReason(paused)).isEqualTo("requires_approval");
        JsonNode request = ofType(paused.json().path("messages"), "approval_request_message").getFirst();
        assertThat(request.path("tool_call").path("name").asString()).isEqualTo("Bash");
        assertThat(request.path("tool_call").path("tool_call_id").asString()).isEqualTo("c1");
        assertThat(ServerFixture.JSON.readTree(request.path("tool_call").path("arguments").asString()).path("command").asString())
                .isEqualTo("ls");
        assertThat(request.path("tool_calls")).hasSize(1);
        assertThat(request.path("tool_calls").get(0).path("tool_call_id").asString()).isEqualTo("c1");
        assertThat(types(paused.json().path("messages"))).doesNotContain("tool_call_message", "tool_return_message");
        // offered beside the agent's own tools, and never stored on the agent
        assertThat(toolNames(model.requests().getFirst())).contains("Bash", "send_message", "block");
        assertThat(model.requests().getFirst().tools().stream().filter(t -> t.name().equals("Bash")).findFirst().orElseThrow()
                .description()).isEqualTo("Runs a shell command on the user's machine.");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json().path("tools").toString()).doesNotContain("Bash");

        ServerFixture.Response done = fx.post(fx.ana, messages(), approvals(obj("type", "tool", "tool_call_id", "c1",
                "tool_return", "notes.txt", "status", "success", "stdout", List.of("notes.txt"), "stderr", List.of())));
        assertThat(done.status()).as(done.text()).isEqualTo(200);
        assertThat(stopReason(done)).isEqualTo("end_turn");
        JsonNode returned = ofType(done.json().path("messages"), "tool_return_message").getFirst();
        assertThat(returned.path("tool_return").asString()).isEqualTo("notes.txt");
        assertThat(returned.path("status").asString()).isEqualTo("success");
        assertThat(returned.path("tool_call_id").asString()).isEqualTo("c1");
        assertThat(ofType(done.json().path("messages"), "assistant_message").getFirst().path("content").asString())
                .isEqualTo("You have one file.");
        // the model got the result as the call's, and the call and its return are recall
        ChatMessage last = model.requests().get(1).messages().getLast();
        assertThat(last).isInstanceOf(ChatMessage.ToolResult.class);
        assertThat(((ChatMessage.ToolResult) last).content()).isEqualTo("notes.txt");
        JsonNode listed = fx.get(fx.ana, messages()).json();
        assertThat(ofType(listed, "tool_call_message")).anyMatch(m -> m.path("tool_call").path("name").asString().equals("Bash"));
        assertThat(ofType(listed, "tool_return_message")).anyMatch(m -> m.path("tool_return").asString().equals("notes.txt"));

        // the next request brings no client tools: the model is not offered Bash
        assertThat(fx.post(fx.ana, messages(), fx.userMessage("hi")).status()).isEqualTo(200);
        assertThat(toolNames(model.requests().get(2))).doesNotContain("Bash").contains("send_message");
    }

    @Test
    void parallelClientCallsAndAServerApprovalPauseTogetherAndAreAnsweredInOneStreamedMessage() {
        start("""
                {"turns": [
                  {"tool_calls": [
                    {"id": "b1", "name": "Bash", "arguments": {"command": "make"}},
                    {"id": "r1", "name": "Read", "arguments": {"file_path": "/nope"}},
                    {"id": "k1", "name": "block", "arguments": {"operation": "append", "label": "human", "text": "Ana"}}]},
                  {"text": "Built; the file is missing.", "expect_in_prompt": ["line one\\nline two", "no such file", "not now"]}
                ]}""");
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=true", null).status())
                .isEqualTo(200);
        List<JsonNode> paused = stream(messages() + "/stream", withTools(fx.userMessage("build it"), BASH, READ));
        List<JsonNode> requests = ofType(ServerFixture.JSON.valueToTree(paused), "approval_request_message");
        assertThat(requests).extracting(m -> m.path("tool_call").path("tool_call_id").asString()).containsExactly("b1", "r1", "k1");
        assertThat(requests).extracting(m -> m.path("tool_call").path("name").asString()).containsExactly("Bash", "Read", "block");
        assertThat(ofType(ServerFixture.JSON.valueToTree(paused), "stop_reason").getFirst().path("stop_reason").asString())
                .isEqualTo("requires_approval");
        // nothing ran before the answer: the block is unchanged
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/human").json().path("value").asString())
                .doesNotContain("Ana");

        List<JsonNode> done = stream(messages() + "/stream", approvals(
                result("b1", List.of(obj("type", "text", "text", "line one"), obj("type", "text", "text", "line two")), "success"),
                result("r1", "no such file", "error"),
                obj("type", "approval", "tool_call_id", "k1", "approve", false, "reason", "not now")));
        JsonNode events = ServerFixture.JSON.valueToTree(done);
        List<JsonNode> returns = ofType(events, "tool_return_message");
        assertThat(returns).extracting(m -> m.path("tool_call_id").asString()).containsExactly("b1", "r1", "k1");
        assertThat(returns).extracting(m -> m.path("status").asString()).containsExactly("success", "error", "error");
        assertThat(returns.get(0).path("tool_return").asString()).isEqualTo("line one\nline two");
        assertThat(returns.get(1).path("tool_return").asString()).contains("no such file");
        assertThat(returns.get(2).path("tool_return").asString()).contains("not now");
        assertThat(ofType(events, "stop_reason").getFirst().path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/human").json().path("value").asString())
                .doesNotContain("Ana");
    }

    @Test
    void lettaCodesPathTheDefaultConversationStreamsThePauseAndTakesTheAnswer() {
        start("""
                {"turns": [
                  {"tool_calls": [
                    {"id": "b1", "name": "Bash", "arguments": {"command": "pwd"}},
                    {"id": "k1", "name": "block", "arguments": {"operation": "append", "label": "human", "text": "Ana"}}]},
                  {"text": "You are in /home/ana.", "expect_in_prompt": ["/home/ana"]}
                ]}""");
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=true", null).status())
                .isEqualTo(200);
        String path = "/v1/conversations/default/messages";
        ObjectNode first = withTools(fx.userMessage("where am I?"), BASH);
        first.put("agent_id", agent).put("streaming", true).put("stream_tokens", true);
        JsonNode paused = ServerFixture.JSON.valueToTree(stream(path, first));
        assertThat(ofType(paused, "approval_request_message")).extracting(m -> m.path("tool_call").path("tool_call_id").asString())
                .containsExactly("b1", "k1");
        assertThat(ofType(paused, "stop_reason").getFirst().path("stop_reason").asString()).isEqualTo("requires_approval");

        ObjectNode answer = withTools(approvals(result("b1", "/home/ana", "success"),
                obj("type", "approval", "tool_call_id", "k1", "approve", true)), BASH);
        answer.put("agent_id", agent).put("streaming", true);
        JsonNode done = ServerFixture.JSON.valueToTree(stream(path, answer));
        assertThat(ofType(done, "tool_return_message")).extracting(m -> m.path("tool_return").asString())
                .anyMatch(t -> t.equals("/home/ana"));
        assertThat(ofType(done, "stop_reason").getFirst().path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/human").json().path("value").asString())
                .endsWith("Ana");
    }

    @Test
    void lettasToolReturnMessageAnswersOnANonStreamedConversation() {
        start("""
                {"turns": [
                  {"tool_calls": [{"id": "g1", "name": "Grep", "arguments": {"pattern": "TODO"}}]},
                  {"text": "No TODOs left.", "expect_in_prompt": ["0 matches"]}
                ]}""");
        ObjectNode grep = obj("name", "Grep", "description", "Searches files.");
        String path = "/v1/conversations/default/messages?agent_id=" + agent;
        ObjectNode first = withTools(fx.userMessage("any TODOs?"), grep);
        first.put("streaming", false);
        ServerFixture.Response paused = fx.post(fx.ana, path, first);
        assertThat(stopReason(paused)).as(paused.text()).isEqualTo("requires_approval");
        ObjectNode answer = obj("messages", List.of(obj("type", "tool_return", "tool_returns", List.of(
                obj("tool_call_id", "g1", "tool_return", "0 matches", "status", "success")))), "streaming", false);
        ServerFixture.Response done = fx.post(fx.ana, path, answer);
        assertThat(done.status()).as(done.text()).isEqualTo(200);
        assertThat(stopReason(done)).isEqualTo("end_turn");
        assertThat(ofType(done.json().path("messages"), "tool_return_message").getFirst().path("tool_return").asString())
                .isEqualTo("0 matches");
    }

    @Test
    void answersThatDoNotAnswerExactlyTheWaitingCallsAreRefusedAndTheTurnStillWaits() {
        start("""
                {"turns": [
                  {"tool_calls": [
                    {"id": "b1", "name": "Bash", "arguments": {"command": "make"}},
                    {"id": "r1", "name": "Read", "arguments": {"file_path": "a"}}]},
                  {"text": "Done."}
                ]}""");
        assertThat(stopReason(fx.post(fx.ana, messages(), withTools(fx.userMessage("go"), BASH, READ)))).isEqualTo("requires_approval");
        long before = stored();

        ServerFixture.Response missing = fx.post(fx.ana, messages(), approvals(result("b1", "ok", "success")));
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.detail()).contains("No answer for tool_call_id r1 ('Read')");
        ServerFixture.Response unknown = fx.post(fx.ana, messages(), approvals(result("b1", "ok", "success"),
                result("zz", "ok", "success")));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.detail()).contains("tool_call_id 'zz' is not waiting").contains("b1").contains("r1");
        ServerFixture.Response twice = fx.post(fx.ana, messages(), approvals(result("b1", "ok", "success"),
                result("b1", "ok", "success"), result("r1", "ok", "success")));
        assertThat(twice.status()).isEqualTo(422);
        assertThat(twice.detail()).contains("answered twice");
        ServerFixture.Response approved = fx.post(fx.ana, messages(), approvals(obj("type", "approval", "tool_call_id", "b1",
                "approve", true), result("r1", "ok", "success")));
        assertThat(approved.status()).isEqualTo(400);
        assertThat(approved.detail()).contains("'Bash' (tool_call_id b1) is a client tool");
        ServerFixture.Response status = fx.post(fx.ana, messages(), approvals(result("b1", "ok", "maybe"), result("r1", "ok", "success")));
        assertThat(status.status()).isEqualTo(422);
        assertThat(status.json().path("detail").get(0).path("loc").toString()).contains("status");
        ServerFixture.Response shape = fx.post(fx.ana, messages(), approvals(result("b1", 42, "success"), result("r1", "ok", "success")));
        assertThat(shape.status()).isEqualTo(422);
        ServerFixture.Response busy = fx.post(fx.ana, messages(), fx.userMessage("hello?"));
        assertThat(busy.status()).isEqualTo(409);
        assertThat(busy.detail()).contains("waiting for the result of a call to 'Bash'");
        ServerFixture.Response other = fx.post(fx.ben, messages(), approvals(result("b1", "ok", "success"), result("r1", "ok", "success")));
        assertThat(other.status()).isEqualTo(404);
        assertThat(stored()).isEqualTo(before);
        assertThat(model.played()).isEqualTo(1);

        ServerFixture.Response done = fx.post(fx.ana, messages(), approvals(result("r1", "read", "success"), result("b1", "made", "success")));
        assertThat(done.status()).as(done.text()).isEqualTo(200);
        assertThat(stopReason(done)).isEqualTo("end_turn");
        assertThat(ofType(done.json().path("messages"), "tool_return_message")).extracting(m -> m.path("tool_return").asString())
                .containsExactly("made", "read");
    }

    @Test
    void badClientToolSchemasAre422NamingTheToolAndNothingIsStoredOrAsked() {
        start("""
                {"turns": [{"text": "unused"}]}""");
        ServerFixture.Response type = fx.post(fx.ana, messages(), withTools(fx.userMessage("x"),
                obj("name", "Bash", "parameters", obj("type", "string"))));
        assertThat(type.status()).isEqualTo(422);
        assertThat(type.detail()).contains("client tool 'Bash'");
        assertThat(type.json().path("detail").get(0).path("loc")).extracting(JsonNode::asString)
                .containsExactly("body", "client_tools", "0", "parameters", "type");
        ServerFixture.Response name = fx.post(fx.ana, messages(), withTools(fx.userMessage("x"), obj("name", "run shell")));
        assertThat(name.status()).isEqualTo(422);
        assertThat(name.detail()).contains("'run shell'");
        ServerFixture.Response twice = fx.post(fx.ana, messages(), withTools(fx.userMessage("x"), BASH, BASH));
        assertThat(twice.status()).isEqualTo(422);
        assertThat(twice.detail()).contains("'Bash' is given twice");
        ServerFixture.Response notSchema = fx.post(fx.ana, messages(), withTools(fx.userMessage("x"),
                obj("name", "Grep", "parameters", obj("type", "object", "properties", obj("pattern", obj("type", 7))))));
        assertThat(notSchema.status()).isEqualTo(422);
        assertThat(notSchema.detail()).contains("Client tool 'Grep'").contains("/properties/pattern/type");
        ServerFixture.Response list = fx.post(fx.ana, messages(), withTools(fx.userMessage("x"), obj("name", "Grep", "parameters", "{}")));
        assertThat(list.status()).isEqualTo(422);
        assertThat(stored()).isZero();
        assertThat(model.played()).isZero();
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json().path("tools").toString()).doesNotContain("Grep", "Bash");
    }

    @Test
    void aClientToolNamedAsOneOfTheAgentsToolsReplacesItForTheTurn() {
        start("""
                {"turns": [
                  {"tool_calls": [{"id": "s1", "name": "search", "arguments": {"query": "tea"}}]},
                  {"text": "Found it on your disk."}
                ]}""");
        ObjectNode search = obj("name", "search", "description", "Searches the user's disk.",
                "parameters", obj("type", "object", "properties", obj("query", obj("type", "string"))));
        ServerFixture.Response paused = fx.post(fx.ana, messages(), withTools(fx.userMessage("find tea"), search));
        assertThat(stopReason(paused)).as(paused.text()).isEqualTo("requires_approval");
        List<ToolDefinition> offered = model.requests().getFirst().tools().stream().filter(t -> t.name().equals("search")).toList();
        assertThat(offered).singleElement().extracting(ToolDefinition::description).isEqualTo("Searches the user's disk.");
        ServerFixture.Response done = fx.post(fx.ana, messages(), approvals(result("s1", "tea.txt", "success")));
        assertThat(ofType(done.json().path("messages"), "tool_return_message").getFirst().path("tool_return").asString())
                .isEqualTo("tea.txt");
    }

    @Test
    void aCancelEndsATurnWaitingForTheClientCleanly() {
        start("""
                {"turns": [
                  {"tool_calls": [{"id": "b1", "name": "Bash", "arguments": {"command": "sleep 100"}}]},
                  {"text": "Hello."}
                ]}""");
        assertThat(stopReason(fx.post(fx.ana, messages(), withTools(fx.userMessage("go"), BASH)))).isEqualTo("requires_approval");
        assertThat(fx.post(fx.ana, messages() + "/cancel", obj()).json().path("cancelled").asBoolean()).isTrue();
        // the call has a result (history pairs), and the agent takes the next message
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (fx.server.runtime().agent("ana", agent).isBusy() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all()).stream()
                .filter(m -> m.toolCallId().filter("b1"::equals).isPresent())).hasSize(1);
        ServerFixture.Response late = fx.post(fx.ana, messages(), approvals(result("b1", "ok", "success")));
        assertThat(late.status()).isEqualTo(400);
        ServerFixture.Response next = fx.post(fx.ana, messages(), fx.userMessage("hi"));
        assertThat(next.status()).as(next.text()).isEqualTo(200);
        assertThat(stopReason(next)).isEqualTo("end_turn");
    }

    @Test
    void aConversationsCancelStopsItsOwnWaitingTurnAndAnswersAsLettaDoes() {
        start("""
                {"turns": [
                  {"tool_calls": [{"id": "b1", "name": "Bash", "arguments": {"command": "sleep 100"}}]},
                  {"text": "Hello."}
                ]}""");
        String conv = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj()).json().path("id").asString();
        String other = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj()).json().path("id").asString();
        ObjectNode message = withTools(fx.userMessage("go"), BASH);
        message.put("streaming", false);
        ServerFixture.Response paused = fx.post(fx.ana, "/v1/conversations/" + conv + "/messages", message);
        assertThat(stopReason(paused)).as(paused.text()).isEqualTo("requires_approval");
        String run = paused.json().path("usage").path("run_ids").path(0).asString();
        assertThat(run).startsWith("run-");

        // another conversation of the agent has no run: Letta's 409, and the waiting turn is untouched
        ServerFixture.Response elsewhere = fx.post(fx.ana, "/v1/conversations/" + other + "/cancel", obj());
        assertThat(elsewhere.status()).isEqualTo(409);
        assertThat(elsewhere.text()).contains("No active runs to cancel for conversation " + other);
        assertThat(fx.server.runtime().agent("ana", agent).isBusy()).isTrue();
        assertThat(fx.post(fx.ben, "/v1/conversations/" + conv + "/cancel", obj()).status()).isEqualTo(404);
        assertThat(fx.server.runtime().agent("ana", agent).isBusy()).isTrue();

        ServerFixture.Response cancel = fx.post(fx.ana, "/v1/conversations/" + conv + "/cancel", obj());
        assertThat(cancel.status()).as(cancel.text()).isEqualTo(200);
        assertThat(cancel.json().path(run).asString()).isEqualTo("cancelled");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (fx.server.runtime().agent("ana", agent).isBusy() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(fx.server.runtime().agent("ana", agent).isBusy()).isFalse();
        assertThat(fx.post(fx.ana, "/v1/conversations/" + conv + "/cancel", obj()).status()).isEqualTo(409);
    }

    @Test
    void aListingShowsTheCallsTheTurnWaitsOnAsApprovalRequestsUntilTheyAreAnswered() {
        start("""
                {"turns": [
                  {"tool_calls": [{"id": "c1", "name": "Bash", "arguments": {"command": "ls"}}]},
                  {"text": "Done."}
                ]}""");
        assertThat(stopReason(fx.post(fx.ana, messages(), withTools(fx.userMessage("list"), BASH)))).isEqualTo("requires_approval");
        JsonNode listed = fx.get(fx.ana, messages() + "?order=asc").json();
        List<JsonNode> requests = ofType(listed, "approval_request_message");
        assertThat(requests).hasSize(1);
        assertThat(requests.getFirst().path("tool_call").path("tool_call_id").asString()).isEqualTo("c1");
        assertThat(requests.getFirst().path("tool_call").path("name").asString()).isEqualTo("Bash");
        assertThat(ofType(listed, "tool_call_message")).isEmpty();
        // the listed request's id is the stored message's: a client can fetch it
        assertThat(fx.get(fx.ana, "/v1/messages/" + requests.getFirst().path("id").asString()).status()).isEqualTo(200);

        ServerFixture.Response answered = fx.post(fx.ana, messages(), approvals(result("c1", "notes.txt", "success")));
        assertThat(stopReason(answered)).as(answered.text()).isEqualTo("end_turn");
        JsonNode after = fx.get(fx.ana, messages() + "?order=asc").json();
        assertThat(ofType(after, "approval_request_message")).isEmpty();
        assertThat(ofType(after, "tool_call_message")).hasSize(1);
    }
}

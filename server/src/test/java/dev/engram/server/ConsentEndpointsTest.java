package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MemoryPermission;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Consent to a write of a {@code human} or {@code partner} block reaches the API client as an approval request of the
 * call that writes, which it answers as it answers a tool approval: approved, the write happens; denied, nothing changes.
 */
class ConsentEndpointsTest {
    private static final String APPEND = "call {\"name\": \"block\", \"arguments\": {\"operation\": \"append\", "
            + "\"label\": \"diary\", \"text\": \"Ana met Ben\"}}";

    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        agent = fx.agent(fx.ana, "helper");
        fx.store.blocks().create(Scope.of("ana", agent), NewBlock.builder("diary").value("Ana's diary.")
                .permission(MemoryPermission.HUMAN).build());
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private String diary() {
        return fx.store.blocks().get(Scope.of("ana", agent), "diary").orElseThrow().value();
    }

    private static JsonNode last(ServerFixture.Response r) {
        JsonNode messages = r.json().path("messages");
        return messages.get(messages.size() - 1);
    }

    private ServerFixture.Response answer(String callId, boolean approve, String reason) {
        return fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("messages", List.of(obj("type", "approval",
                "approvals", List.of(obj("type", "approval", "tool_call_id", callId, "approve", approve, "reason", reason))))));
    }

    @Test
    void aWriteToAHumanBlockWaitsForTheClientsApprovalAndHappensOnlyWhenApproved() {
        ServerFixture.Response paused = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", APPEND));
        assertThat(paused.status()).as(paused.text()).isEqualTo(200);
        assertThat(paused.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("requires_approval");
        JsonNode request = last(paused);
        assertThat(request.path("message_type").asString()).isEqualTo("approval_request_message");
        assertThat(request.path("tool_call").path("name").asString()).isEqualTo("block");
        assertThat(request.path("tool_call").path("arguments").asString()).contains("Ana met Ben");
        assertThat(diary()).as("nothing is written while the client is asked").isEqualTo("Ana's diary.");

        ServerFixture.Response done = answer(request.path("tool_call").path("tool_call_id").asString(), true, "fine");
        assertThat(done.status()).as(done.text()).isEqualTo(200);
        assertThat(done.json().path("messages").get(0).path("message_type").asString()).isEqualTo("tool_return_message");
        assertThat(done.json().path("messages").get(0).path("status").asString()).isEqualTo("success");
        assertThat(diary()).isEqualTo("Ana's diary.\nAna met Ben");

        ServerFixture.Response again = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", APPEND));
        assertThat(again.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("requires_approval");
        ServerFixture.Response denied = answer(last(again).path("tool_call").path("tool_call_id").asString(), false,
                "not in my diary");
        assertThat(denied.status()).as(denied.text()).isEqualTo(200);
        JsonNode refused = denied.json().path("messages").get(0);
        assertThat(refused.path("status").asString()).isEqualTo("error");
        assertThat(refused.path("tool_return").asString()).contains("consent").contains("Nothing was changed");
        assertThat(diary()).as("a denied write changes nothing").isEqualTo("Ana's diary.\nAna met Ben");
    }

    @Test
    void anApprovalThatNamesAnotherCallIsRefusedAndTheWriteStillWaits() {
        ServerFixture.Response paused = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", APPEND));
        String callId = last(paused).path("tool_call").path("tool_call_id").asString();
        ServerFixture.Response wrong = answer("call-not-this-one", true, "ok");
        assertThat(wrong.status()).isEqualTo(400);
        assertThat(wrong.detail()).contains(callId);
        assertThat(diary()).isEqualTo("Ana's diary.");
        assertThat(answer(callId, true, "ok").status()).isEqualTo(200);
        assertThat(diary()).endsWith("Ana met Ben");
    }
}

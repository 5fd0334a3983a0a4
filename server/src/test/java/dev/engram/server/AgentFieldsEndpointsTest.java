package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Agent create, modify and read over Letta's API keep every field of {@code CreateAgentRequest} / {@code UpdateAgent}, or refuse it. */
class AgentFieldsEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void anAgentCreatedWithoutATypeIsALettaV1AgentAsInLettaAndAGivenTypeIsKept() {
        JsonNode plain = fx.post(fx.ana, "/v1/agents/", obj("name", "plain")).json();
        assertThat(plain.path("agent_type").asString()).isEqualTo("letta_v1_agent");
        assertThat(plain.path("memory").path("agent_type").asString()).isEqualTo("letta_v1_agent");
        JsonNode memgpt = fx.post(fx.ana, "/v1/agents/", obj("name", "old", "agent_type", "memgpt_v2_agent")).json();
        assertThat(memgpt.path("agent_type").asString()).isEqualTo("memgpt_v2_agent");
        assertThat(fx.get(fx.ana, "/v1/agents/" + memgpt.path("id").asString()).json().path("agent_type").asString())
                .isEqualTo("memgpt_v2_agent");
    }

    @Test
    void aTypeEngramDoesNotRunIsA422ListingTheTypesItRunsAndCreatesNothing() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "voice", "agent_type", "voice_convo_agent"));
        assertThat(r.status()).isEqualTo(422);
        assertThat(r.json().path("detail").get(0).path("loc")).extracting(JsonNode::asString).containsExactly("body", "agent_type");
        assertThat(r.text()).contains("voice_convo_agent").contains("Engram runs letta_v1_agent, memgpt_v2_agent, memgpt_agent");
        assertThat(fx.get(fx.ana, "/v1/agents/count").json().asInt()).isZero();
    }

    @Test
    void theRestViewAndAnExportedFileGiveEachToolTheSameType() {
        String id = fx.post(fx.ana, "/v1/agents/", obj("name", "typed", "tools",
                List.of("core_memory_append", "memory_insert", "conversation_search"))).json().path("id").asString();
        Map<String, String> viewed = new HashMap<>();
        fx.get(fx.ana, "/v1/agents/" + id).json().path("tools")
                .forEach(t -> viewed.put(t.path("name").asString(), t.path("tool_type").asString()));
        Map<String, String> exported = new HashMap<>();
        Body.JSON.readTree(fx.get(fx.ana, "/v1/agents/" + id + "/export").text()).path("tools")
                .forEach(t -> exported.put(t.path("name").asString(), t.path("tool_type").asString()));
        assertThat(viewed).isEqualTo(exported);
        assertThat(viewed).containsEntry("send_message", "letta_core").containsEntry("core_memory_append", "letta_memory_core")
                .containsEntry("memory_insert", "letta_sleeptime_core").containsEntry("block", "letta_builtin");
    }
}

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

    @Test
    void theReadmesTwoHelpersAreBothCreatedAndIdsTellThemApart() {
        // The README's curl example and then its JavaScript example, as written: both create 'helper'.
        ServerFixture.Response curl = fx.post(fx.ana, "/v1/agents/", obj("name", "helper", "model", "test:echo",
                "memory_blocks", List.of(obj("label", "human", "value", "Ana, in Lisbon"))));
        ServerFixture.Response js = fx.post(fx.ana, "/v1/agents/", obj("name", "helper",
                "memory_blocks", List.of(obj("label", "human", "value", "Ana"))));
        assertThat(curl.status()).as(curl.text()).isEqualTo(200);
        assertThat(js.status()).as(js.text()).isEqualTo(200);
        String first = curl.json().path("id").asString();
        String second = js.json().path("id").asString();
        assertThat(second).isNotEqualTo(first);
        assertThat(fx.get(fx.ana, "/v1/agents/?name=helper").json()).extracting(a -> a.path("id").asString())
                .containsExactlyInAnyOrder(first, second);
        // Renaming one to another's name is fine too.
        fx.post(fx.ana, "/v1/agents/", obj("name", "other"));
        String other = fx.get(fx.ana, "/v1/agents/?name=other").json().get(0).path("id").asString();
        assertThat(fx.patch(fx.ana, "/v1/agents/" + other, obj("name", "helper")).status()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/agents/?name=helper").json()).hasSize(3);
    }

    @Test
    void descriptionMetadataTimezoneAndModelSettingsAreStoredReturnedAndModified() {
        JsonNode created = fx.post(fx.ana, "/v1/agents/", obj("name", "planner", "description", "Plans trips",
                "metadata", obj("team", "travel", "priority", 2), "timezone", "Europe/Lisbon",
                "model_settings", obj("provider_type", "openai", "temperature", 0.3, "max_output_tokens", 1024,
                        "parallel_tool_calls", false, "reasoning", obj("reasoning_effort", "low"),
                        "response_format", obj("type", "json_object")))).json();
        String id = created.path("id").asString();
        JsonNode read = fx.get(fx.ana, "/v1/agents/" + id).json();
        assertThat(read.path("description").asString()).isEqualTo("Plans trips");
        assertThat(read.path("metadata").path("team").asString()).isEqualTo("travel");
        assertThat(read.path("metadata").path("priority").asInt()).isEqualTo(2);
        assertThat(read.path("timezone").asString()).isEqualTo("Europe/Lisbon");
        JsonNode settings = read.path("model_settings");
        assertThat(settings.path("temperature").asDouble()).isEqualTo(0.3);
        assertThat(settings.path("max_output_tokens").asInt()).isEqualTo(1024);
        assertThat(settings.path("parallel_tool_calls").asBoolean(true)).isFalse();
        assertThat(settings.path("reasoning").path("reasoning_effort").asString()).isEqualTo("low");
        assertThat(settings.path("response_format").path("type").asString()).isEqualTo("json_object");

        // Modify: the deprecated top-level max_tokens and each field group; what is not named stays.
        ServerFixture.Response patched = fx.patch(fx.ana, "/v1/agents/" + id, obj("description", "Plans everything",
                "metadata", obj("team", "ops"), "timezone", "UTC", "max_tokens", 512));
        assertThat(patched.status()).as(patched.text()).isEqualTo(200);
        JsonNode again = fx.get(fx.ana, "/v1/agents/" + id).json();
        assertThat(again.path("description").asString()).isEqualTo("Plans everything");
        assertThat(again.path("metadata").path("team").asString()).isEqualTo("ops");
        assertThat(again.path("timezone").asString()).isEqualTo("UTC");
        assertThat(again.path("model_settings").path("max_output_tokens").asInt()).isEqualTo(512);
        assertThat(again.path("model_settings").path("temperature").asDouble()).isEqualTo(0.3);
    }

    @Test
    void aBadOrUnsupportedFieldIsA422NamingItAndChangesNothing() {
        String id = fx.post(fx.ana, "/v1/agents/", obj("name", "keeper", "description", "Keeps things")).json().path("id").asString();
        JsonNode before = fx.get(fx.ana, "/v1/agents/" + id).json();
        Map<String, Object> bad = new java.util.LinkedHashMap<>();
        bad.put("timezone", "Mars/Olympus");
        bad.put("model_settings", obj("temperature", 7));
        bad.put("secrets", obj("API_KEY", "x"));
        bad.put("source_ids", List.of("source-1"));
        bad.put("message_buffer_autoclear", true);
        bad.put("embedding_config", obj("embedding_model", "text-embedding-3-small"));
        bad.put("compaction_settings", obj("model", "openai/gpt-4o-mini"));
        bad.forEach((field, value) -> {
            ServerFixture.Response r = fx.patch(fx.ana, "/v1/agents/" + id, obj("description", "Changed", field, value));
            assertThat(r.status()).as(field + ": " + r.text()).isEqualTo(422);
            assertThat(r.text()).as(field).contains(field);
            assertThat(fx.get(fx.ana, "/v1/agents/" + id).json()).as(field).isEqualTo(before);
        });
        ServerFixture.Response create = fx.post(fx.ana, "/v1/agents/", obj("name", "seeded",
                "initial_message_sequence", List.of(obj("role", "user", "content", "hi"))));
        assertThat(create.status()).isEqualTo(422);
        assertThat(create.text()).contains("initial_message_sequence is not supported");
        assertThat(fx.get(fx.ana, "/v1/agents/count").json().asInt()).isEqualTo(1);
    }

    /** Letta's quickstart names an embedding handle: accepted, and the server's own model embeds the agent's memory. */
    @Test
    void anEmbeddingHandleIsAcceptedAndTheServersModelEmbeds() {
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "quick",
                "embedding", "openai/text-embedding-3-small"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String id = created.json().path("id").asString();
        assertThat(fx.post(fx.ana, "/v1/agents/" + id + "/archival-memory", obj("text", "Timber is a dog.")).status())
                .isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/agents/" + id + "/archival-memory/search?query=dog").text()).contains("Timber");
        ServerFixture.Response config = fx.post(fx.ana, "/v1/agents/", obj("name", "configured",
                "embedding_config", obj("embedding_model", "text-embedding-3-small")));
        assertThat(config.status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/agents/count").json().asInt()).isEqualTo(1);
    }

    /** Letta Code creates its agents with {@code "compaction_settings": {"model": "letta/auto"}}: the server's choice. */
    @Test
    void compactionLeftToTheServerIsAcceptedAndAnyOtherIsA422() {
        ServerFixture.Response auto = fx.post(fx.ana, "/v1/agents/", obj("name", "coder",
                "compaction_settings", obj("model", "letta/auto")));
        assertThat(auto.status()).as(auto.text()).isEqualTo(200);
        ServerFixture.Response mode = fx.post(fx.ana, "/v1/agents/", obj("name", "other",
                "compaction_settings", obj("mode", "all")));
        assertThat(mode.status()).isEqualTo(422);
        assertThat(mode.text()).contains("compaction_settings.mode is not supported");
        assertThat(fx.post(fx.ana, "/v1/agents/", obj("name", "other", "compaction_settings", "auto")).status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/agents/count").json().asInt()).isEqualTo(1);
    }
}

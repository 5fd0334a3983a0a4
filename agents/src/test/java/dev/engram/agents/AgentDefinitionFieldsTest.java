package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The definition's newer parts (agent type, model settings, description, metadata, time zone) are stored, exported and read back. */
class AgentDefinitionFieldsTest {
    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    static ModelSettings everySetting() {
        return ModelSettings.builder().temperature(0.3).maxTokens(2048).reasoning(true).reasoningBudgetTokens(1024)
                .effort("high").frequencyPenalty(0.5).parallelToolCalls(false)
                .responseFormat("{\"type\": \"json_schema\", \"json_schema\": {\"name\": \"answer\", \"schema\": {\"type\": \"object\"}}}")
                .build();
    }

    private static AgentDefinition full(String id) {
        return AgentDefinition.builder("ana").id(id).name("Helper").model("script:test").agentType(AgentType.LETTA_V1_AGENT)
                .modelSettings(everySetting()).description("Helps Ana plan trips.")
                .metadata("{\"team\": \"travel\", \"priority\": 2, \"nested\": {\"ok\": true}}")
                .timezone(ZoneId.of("Europe/Lisbon")).build();
    }

    @Test
    void everyNewPartSurvivesARestartOnSqlite() {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        AgentDefinition d = full("helper");
        fx.runtime.create(d);
        fx.close();

        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        AgentDefinition loaded = fx.runtime.agent("ana", "helper").definition();
        assertThat(loaded).isEqualTo(d);
        assertThat(loaded.agentType()).isEqualTo(AgentType.LETTA_V1_AGENT);
        assertThat(loaded.modelSettings().temperature()).contains(0.3);
        assertThat(loaded.modelSettings().responseFormat()).get().asString().contains("\"json_schema\"");
        assertThat(loaded.description()).contains("Helps Ana plan trips.");
        assertThat(loaded.metadata()).isEqualTo("{\"team\":\"travel\",\"priority\":2,\"nested\":{\"ok\":true}}");
        assertThat(loaded.timezone()).contains(ZoneId.of("Europe/Lisbon"));
    }

    @Test
    void everyNewPartRoundTripsThroughTheInMemoryStoreAndAnEngramExport() throws Exception {
        try (MemoryStore store = MemoryStore.inMemory();
                dev.engram.memory.MemorySearch search = dev.engram.memory.lucene.LuceneMemorySearch
                        .builder(store, AgentFixture.embedder()).directory(dir.resolve("index")).build();
                AgentRuntime runtime = AgentRuntime.builder(store, search).model("script:test", script("{\"turns\": []}")).build()) {
            AgentDefinition d = full("helper");
            runtime.create(d);
            assertThat(runtime.list("ana")).containsExactly(d);
            String exported = runtime.exportAgent("ana", "helper");
            AgentDefinition copy = runtime.importAgent(AgentImport.json(exported, "the export").user("ben").agentId("copy"))
                    .definition();
            assertThat(copy).isEqualTo(d.toBuilder("ben").id("copy").build());
        }
    }

    @Test
    void aDefinitionStoredBeforeAgentsHadATypeRunsTheHeartbeatLoopItAlwaysRan() {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        fx.store.agents().create(Scope.of("ana", "old"), "Old",
                "{\"id\": \"old\", \"user_id\": \"ana\", \"name\": \"Old\", \"model\": \"script:test\", \"tools\": [\"send_message\"]}");
        AgentDefinition old = fx.runtime.agent("ana", "old").definition();
        assertThat(old.agentType()).isEqualTo(AgentType.MEMGPT_V2_AGENT).isEqualTo(AgentDefinition.DEFAULT_AGENT_TYPE);
        assertThat(old.agentType().loop()).isEqualTo(AgentType.Loop.HEARTBEATS);
        assertThat(old.modelSettings().isProviderDefaults()).isTrue();
        assertThat(old.description()).isEmpty();
        assertThat(old.metadata()).isEqualTo("{}");
        assertThat(old.timezone()).isEmpty();
    }

    @Test
    void agentTypesMapToLettasLoopsOrAreRefusedListingTheOnesEngramRuns() {
        assertThat(AgentType.fromLetta("letta_v1_agent").loop()).isEqualTo(AgentType.Loop.UNTIL_REPLY);
        assertThat(AgentType.fromLetta("sleeptime_agent").loop()).isEqualTo(AgentType.Loop.UNTIL_REPLY);
        assertThat(AgentType.fromLetta("memgpt_agent").loop()).isEqualTo(AgentType.Loop.HEARTBEATS);
        assertThat(AgentType.fromLetta("MEMGPT_V2_AGENT")).isEqualTo(AgentType.MEMGPT_V2_AGENT);
        assertThat(AgentType.fromLetta("react_agent").loop()).isEqualTo(AgentType.Loop.HEARTBEATS);
        assertThatThrownBy(() -> AgentType.fromLetta("voice_convo_agent")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent type 'voice_convo_agent' is a Letta agent type Engram does not run; Engram runs "
                        + "letta_v1_agent, memgpt_v2_agent, memgpt_agent, sleeptime_agent, react_agent");
        assertThatThrownBy(() -> AgentType.fromLetta("robot")).hasMessageStartingWith("agent type 'robot' is not a Letta agent type");
    }

    @Test
    void badModelSettingsAndMetadataAreRefusedWithASentence() {
        assertThatThrownBy(() -> ModelSettings.builder().temperature(2.5)).hasMessage("temperature must be between 0 and 2, got 2.5");
        assertThatThrownBy(() -> ModelSettings.builder().maxTokens(0)).hasMessageContaining("max tokens must be positive");
        assertThatThrownBy(() -> ModelSettings.builder().effort("extreme")).hasMessageContaining("effort must be one of");
        assertThatThrownBy(() -> ModelSettings.builder().frequencyPenalty(3)).hasMessageContaining("between -2 and 2");
        assertThatThrownBy(() -> ModelSettings.builder().responseFormat("{\"type\": \"xml\"}"))
                .hasMessageContaining("\"type\" is one of [text, json_object, json_schema]");
        assertThatThrownBy(() -> ModelSettings.builder().responseFormat("{\"type\": \"json_schema\"}"))
                .hasMessageContaining("needs a \"json_schema\" object");
        assertThatThrownBy(() -> AgentDefinition.builder("ana").metadata("[1, 2]")).hasMessageContaining("must be a JSON object");
        assertThatThrownBy(() -> AgentDefinition.builder("ana").metadata("{nope")).hasMessageContaining("metadata is not JSON");
    }

    @Test
    void aBadStoredTypeIsAClearErrorNamingTheAgent() {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        fx.store.agents().create(Scope.of("ana", "odd"), "Odd", "{\"id\": \"odd\", \"user_id\": \"ana\", \"name\": \"Odd\", "
                + "\"model\": \"script:test\", \"agent_type\": \"voice_convo_agent\"}");
        assertThatThrownBy(() -> fx.runtime.agent("ana", "odd")).isInstanceOf(AgentException.class)
                .hasMessageContaining("the stored definition of agent 'odd' is not a valid agent definition: agent type "
                        + "'voice_convo_agent' is a Letta agent type Engram does not run");
    }

    @Test
    void anImportOfAMissingFileSaysSoAndTheOptionsCheckTheirValues() {
        Path missing = dir.resolve("nowhere.af");
        assertThatThrownBy(() -> AgentImport.of(missing)).isInstanceOf(AgentException.class)
                .hasMessageStartingWith("Cannot read agent file " + missing);
        assertThatThrownBy(() -> AgentImport.json("{}", "x").agentId("has space")).hasMessageContaining("may contain only letters");
        assertThatThrownBy(() -> AgentImport.json("{}", "x").user(" ")).hasMessageContaining("user id must not be null or blank");
        AgentImport base = AgentImport.json("{}", "x");
        AgentImport named = base.user("ben").agentId("copy").model("openai:gpt-4o-mini");
        assertThat(base.user()).isEqualTo(AgentRuntime.DEFAULT_IMPORT_USER);
        assertThat(base.agentId()).isEmpty();
        assertThat(named.user()).isEqualTo("ben");
        assertThat(named.agentId()).contains("copy");
        assertThat(named.model()).contains("openai:gpt-4o-mini");
        assertThat(Files.exists(missing)).isFalse();
    }
}

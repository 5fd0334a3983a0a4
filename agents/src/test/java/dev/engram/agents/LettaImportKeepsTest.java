package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolContext;
import dev.engram.framework.model.ChatOptions;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Block;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Letta Agent File's import keeps what Engram can hold (model settings, description, metadata, time zone, sleep-time
 * groups), drops what cannot apply with a warning (a rule on a detached tool), names whatever else it drops, and
 * exports what it kept.
 */
class LettaImportKeepsTest {
    private static final Path FILES = Path.of(System.getProperty("engram.shared.data", "../../shared/data"), "agent-files");

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private AgentFileImport importJson(String json, String source) {
        return fx.runtime.importLettaAgentFile(AgentImport.json(json, source).user("ana"));
    }

    @Test
    void aRuleOnADetachedToolIsDroppedWithAWarningAndTheOtherRulesKept() {
        String file = """
                {"agents": [{"name": "Co", "id": "agent-9", "system": "s", "tool_ids": ["tool-0"],
                  "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"},
                  "tool_rules": [{"type": "continue_loop", "tool_name": "fetch_webpage"},
                                 {"type": "exit_loop", "tool_name": "note"}]}],
                 "blocks": [],
                 "tools": [{"id": "tool-0", "name": "note", "tool_type": "custom", "json_schema": {"name": "note", "parameters": {"type": "object"}}}]}""";
        fx = new AgentFixture(dir).open(b -> { });
        AgentFileImport imported = importJson(file, "co.af");
        assertThat(imported.agents().getFirst().definition().toolRules()).singleElement()
                .satisfies(r -> assertThat(r.tool()).isEqualTo("note"));
        assertThat(imported.warnings()).singleElement().asString()
                .contains("tool rule continue_loop on 'fetch_webpage' was dropped", "no tool of that name");
    }

    @Test
    void aSleeptimeGroupBecomesTheMainAgentsCompanionWithItsFrequency() {
        String file = """
                {"agents": [{"name": "evie", "id": "agent-a", "system": "s", "block_ids": ["block-0"],
                   "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"}, "enable_sleeptime": true},
                  {"name": "evie-sleeptime", "id": "agent-b", "agent_type": "sleeptime_agent", "system": "s", "block_ids": ["block-0"],
                   "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"}}],
                 "groups": [{"id": "group-0", "agent_ids": ["agent-b"],
                   "manager_config": {"manager_type": "sleeptime", "manager_agent_id": "agent-a", "sleeptime_agent_frequency": 3}}],
                 "blocks": [{"id": "block-0", "label": "persona", "value": "I am Evie."}], "tools": []}""";
        fx = new AgentFixture(dir).open(b -> { });
        AgentFileImport imported = importJson(file, "evie.af");
        assertThat(imported.agents()).singleElement().satisfies(a -> {
            assertThat(a.definition().name()).isEqualTo("evie");
            assertThat(a.definition().sleeptime()).hasValueSatisfying(st -> assertThat(st.everyMessages()).isEqualTo(3));
        });
        assertThat(imported.warnings()).anySatisfy(w -> assertThat(w).contains("'evie-sleeptime' is a sleep-time companion"));
        assertThat(fx.store.agents().list("ana")).hasSize(1);
    }

    @Test
    void modelSettingsDescriptionMetadataAndTimezoneAreKeptAndExported() {
        String file = """
                {"agents": [{"name": "Tuned", "system": "s", "description": "Answers briefly.", "timezone": "Europe/Lisbon",
                  "metadata": {"team": "support"},
                  "llm_config": {"model": "claude-x", "model_endpoint_type": "anthropic", "temperature": 0.3, "max_tokens": 900,
                    "enable_reasoner": true, "max_reasoning_tokens": 2048, "frequency_penalty": 0.5, "parallel_tool_calls": false},
                  "model_settings": {"effort": "high", "response_format": {"type": "json_object"}}}],
                 "blocks": [], "tools": []}""";
        fx = new AgentFixture(dir).open(b -> { });
        AgentDefinition d = importJson(file, "tuned.af").agents().getFirst().definition();
        ModelSettings expected = ModelSettings.builder().temperature(0.3).maxTokens(900).reasoning(true).reasoningBudgetTokens(2048)
                .frequencyPenalty(0.5).parallelToolCalls(false).effort("high").responseFormat("{\"type\":\"json_object\"}").build();
        assertThat(d.modelSettings()).isEqualTo(expected);
        assertThat(d.description()).contains("Answers briefly.");
        assertThat(d.timezone()).contains(ZoneId.of("Europe/Lisbon"));
        assertThat(Heartbeats.JSON.readTree(d.metadata()).path("team").asString()).isEqualTo("support");

        JsonNode out = Heartbeats.JSON.readTree(fx.runtime.exportLettaAgentFile("ana", List.of(d.id())));
        JsonNode a = out.path("agents").get(0);
        assertThat(a.path("llm_config").path("temperature").asDouble()).isEqualTo(0.3);
        assertThat(a.path("llm_config").path("max_reasoning_tokens").asInt()).isEqualTo(2048);
        assertThat(a.path("model_settings").path("response_format").path("type").asString()).isEqualTo("json_object");
        assertThat(a.path("description").asString()).isEqualTo("Answers briefly.");
        assertThat(a.path("timezone").asString()).isEqualTo("Europe/Lisbon");
        assertThat(a.path("metadata").path("team").asString()).isEqualTo("support");

        fx.runtime.delete("ana", d.id());
        AgentDefinition again = importJson(out.toString(), "again.af").agents().getFirst().definition();
        assertThat(again.modelSettings()).isEqualTo(expected);
        assertThat(again.metadata()).isEqualTo(d.metadata());
    }

    @Test
    void anImportedAgentsModelSettingsAreSentWithEveryModelRequest() {
        String file = """
                {"agents": [{"name": "Tuned", "system": "s",
                  "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai", "temperature": 0.3, "max_tokens": 900,
                    "frequency_penalty": 1.0, "parallel_tool_calls": false, "reasoning_effort": "low"}}],
                 "blocks": [], "tools": []}""";
        ScriptedChatModel model = ScriptedChatModel.fromJson("{\"turns\": [{\"text\": \"Hello.\"}]}");
        fx = new AgentFixture(dir).open(b -> b.model("script:tuned", model));
        Agent agent = fx.runtime.importLettaAgentFile(AgentImport.json(file, "tuned.af").user("ana").model("script:tuned"))
                .agents().getFirst();
        agent.send("Hi");
        ChatOptions sent = model.requests().getFirst().options();
        assertThat(sent.temperature()).contains(0.3);
        assertThat(sent.maxTokens()).contains(900);
        assertThat(sent.frequencyPenalty()).contains(1.0);
        assertThat(sent.effort()).contains("low");
        assertThat(sent.parallelToolCalls()).isFalse();
    }

    @Test
    void aModelAtAProviderEngramCannotRunIsKeptAndTheFirstTurnSaysHowToGiveItOne() {
        String file = """
                {"agents": [{"name": "lettabot", "system": "s",
                  "llm_config": {"model": "glm-4.6", "model_endpoint_type": "zai", "model_endpoint": "https://api.z.ai/api/paas/v4"}}],
                 "blocks": [], "tools": []}""";
        fx = new AgentFixture(dir).open(b -> { });
        AgentFileImport imported = importJson(file, "lettabot.af");
        Agent agent = imported.agents().getFirst();
        assertThat(agent.definition().model()).isEqualTo("zai:glm-4.6");
        assertThat(imported.warnings()).anySatisfy(w -> assertThat(w).contains("'zai:glm-4.6'", "which Engram cannot run"));
        assertThatThrownBy(() -> agent.send("Hi")).isInstanceOf(AgentException.class)
                .hasMessageContaining("Cannot use model 'zai:glm-4.6'")
                .hasMessageContaining("PATCH /v1/agents/{agent_id}").hasMessageContaining("--model SPEC");
        assertThat(fx.runtime.agent("ana", agent.id()).definition().model()).isEqualTo("zai:glm-4.6");
    }

    @Test
    void aToolsReturnCharLimitIsKeptExportedAndCutsItsOutput() throws Exception {
        String file = """
                {"agents": [{"name": "Limited", "system": "s", "tool_ids": ["tool-0"],
                  "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"}}],
                 "blocks": [],
                 "tools": [{"id": "tool-0", "name": "note", "tool_type": "custom", "return_char_limit": 12,
                   "source_type": "python", "source_code": "def note():\\n    return 'x' * 100",
                   "json_schema": {"name": "note", "parameters": {"type": "object"}}}]}""";
        fx = new AgentFixture(dir).open(b -> { });
        AgentDefinition d = importJson(file, "limited.af").agents().getFirst().definition();
        assertThat(d.declaredTools()).singleElement().satisfies(t -> assertThat(t.returnCharLimit()).isEqualTo(12));
        JsonNode out = Heartbeats.JSON.readTree(fx.runtime.exportLettaAgentFile("ana", List.of(d.id())));
        assertThat(out.at("/tools/0/return_char_limit").asInt()).isEqualTo(12);
        assertThat(fx.runtime.agent("ana", d.id()).definition().declaredTools().getFirst().returnCharLimit()).isEqualTo(12);
        DynamicTool chatty = new DynamicTool() {
            public String name() {
                return "note";
            }

            public String description() {
                return "d";
            }

            public ObjectNode parametersSchema() {
                return Heartbeats.JSON.createObjectNode().put("type", "object");
            }

            public String execute(String argumentsJson, ToolContext context) {
                return "x".repeat(100);
            }
        };
        String cut = CharLimitedTool.of(chatty, 12).execute("{}", null);
        assertThat(cut).startsWith("x".repeat(12) + "\n").contains("return limit of 12 characters, from 100");
        // the pipeline calls run: the text is cut there too, and what the tool says of itself is its own
        assertThat(CharLimitedTool.of(chatty, 12).run("{}", null).value()).isEqualTo(cut);
        assertThat(CharLimitedTool.of(chatty, 200).run("{}", null).value()).isEqualTo("x".repeat(100));
        assertThat(CharLimitedTool.of(chatty, 12).safetyTier()).isEqualTo(chatty.safetyTier());
        assertThat(CharLimitedTool.of(chatty, 12).name()).isEqualTo(chatty.name());
        assertThatThrownBy(() -> CharLimitedTool.of(chatty, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theTimesThePromptShowsAreInTheAgentsTimezone() {
        String file = """
                {"agents": [{"name": "Local", "system": "s", "timezone": "Asia/Tokyo",
                  "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"}}], "blocks": [], "tools": []}""";
        ScriptedChatModel model = ScriptedChatModel.fromJson("{\"turns\": [{\"text\": \"Hello.\"}]}");
        fx = new AgentFixture(dir).open(b -> b.model("script:local", model));
        Agent agent = fx.runtime.importLettaAgentFile(AgentImport.json(file, "local.af").user("ana").model("script:local"))
                .agents().getFirst();
        agent.send("Hi");
        assertThat(agent.compilePrompt().systemText()).containsPattern("Last message: \\d{4}-\\d\\d-\\d\\dT[0-9:]{8}\\+09:00\\[Asia/Tokyo\\]");
    }

    @Test
    void whatTheFileHoldsThatEngramDoesNotImportIsListedInTheReport() {
        String file = """
                {"agents": [{"name": "Env", "system": "s", "llm_config": {"model": "m", "model_endpoint_type": "openai"},
                  "tool_exec_environment_variables": [{"key": "API_KEY", "value": "x"}], "secrets": {"TOKEN": "y"},
                  "source_ids": ["source-0"]}],
                 "blocks": [], "tools": [], "skills": [{"name": "pdf"}], "files": [{"id": "file-0"}], "sources": [{"id": "source-0"}],
                 "groups": [{"id": "group-1", "agent_ids": [], "manager_config": {"manager_type": "round_robin"}}]}""";
        fx = new AgentFixture(dir).open(b -> { });
        AgentFileImport imported = importJson(file, "env.af");
        assertThat(imported.dropped()).extracting(DroppedGrant::field).contains("agents[0].tool_exec_environment_variables",
                "agents[0].secrets", "skills", "files[id=file-0]", "groups[id=group-1]")
                .doesNotContain("agents[0].source_ids", "sources");
        assertThat(fx.store.folders().agents().attached(imported.agents().getFirst().scope())).extracting(f -> f.name())
                .containsExactly("source-0");
        assertThat(imported.dropped()).filteredOn(g -> g.field().endsWith("secrets")).singleElement()
                .satisfies(g -> assertThat(g.asked()).isEqualTo("TOKEN"));
    }

    @Test
    void aTimezoneThatIsNoneIsRefusedByFieldAndNothingIsStored() {
        String file = """
                {"agents": [{"name": "Lost", "system": "s", "timezone": "Mars/Olympus",
                  "llm_config": {"model": "m", "model_endpoint_type": "openai"}}], "blocks": [], "tools": []}""";
        fx = new AgentFixture(dir).open(b -> { });
        assertThatThrownBy(() -> importJson(file, "lost.af")).isInstanceOf(AgentException.class)
                .hasMessageContaining("agents[0].timezone").hasMessageContaining("Nothing was stored");
        assertThat(fx.store.agents().list("ana")).isEmpty();
    }

    static Stream<String> files() {
        return Stream.of("memgpt_agent.af", "memgpt_agent_with_convo.af", "customer_service.af", "loop.af",
                "outreach_workflow_agent.af");
    }

    @ParameterizedTest
    @MethodSource("files")
    void aSharedFileImportsExportsAndReimportsWithNothingLost(String name) throws Exception {
        Path path = FILES.resolve(name);
        assumeTrue(Files.isRegularFile(path), "the shared agent files are absent; skipping");
        fx = new AgentFixture(dir).open(b -> { });
        Agent first = importJson(Files.readString(path), name).agents().getFirst();
        String exported = fx.runtime.exportLettaAgentFile("ana", List.of(first.id()));
        fx.runtime.delete("ana", first.id());
        Agent second = importJson(exported, "exported-" + name).agents().getFirst();
        AgentDefinition a = first.definition();
        AgentDefinition b = second.definition();
        assertThat(b.modelSettings()).isEqualTo(a.modelSettings());
        assertThat(a.modelSettings().isProviderDefaults()).isFalse();
        assertThat(b.description()).isEqualTo(a.description()).isPresent();
        assertThat(b.timezone()).isEqualTo(a.timezone());
        assertThat(b.metadata()).isEqualTo(a.metadata());
        assertThat(b.tags()).isEqualTo(a.tags());
        assertThat(b.systemPrompt()).isEqualTo(a.systemPrompt());
        assertThat(b.model()).isEqualTo(a.model());
        assertThat(b.agentType()).isEqualTo(a.agentType());
        assertThat(b.tools()).isEqualTo(a.tools());
        assertThat(b.declaredTools()).isEqualTo(a.declaredTools());
        assertThat(b.toolRules()).isEqualTo(a.toolRules());
        assertThat(b.sleeptime()).isEqualTo(a.sleeptime());
        assertThat(b.contextWindowTokens()).isEqualTo(a.contextWindowTokens());
        assertThat(values(second)).isEqualTo(values(first));
    }

    private List<String> values(Agent agent) {
        return fx.store.blocks().list(agent.scope()).stream().sorted(Comparator.comparing(Block::label))
                .map(bl -> bl.label() + "=" + bl.value() + "/" + bl.limit()).toList();
    }
}

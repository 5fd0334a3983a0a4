package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.AiTool;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.model.ScriptedChatModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tools that change while an agent lives: registered, given to it, replaced; offered from its next step. */
class LiveToolsTest {
    @TempDir
    Path dir;

    private AgentFixture fx;

    record City(String city) {
    }

    record Nothing(Optional<String> note) {
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private static DynamicTool weather(String answer) {
        return DynamicTool.from(AiTool.of("weather", "The weather in a city.", City.class, SafetyTier.READ_ONLY,
                (in, ctx) -> answer + " in " + in.city()));
    }

    @Test
    void aToolRegisteredAndGivenDuringATurnIsOfferedFromTheNextStepAndTheChangeIsKept() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "install", "arguments": {"request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "weather", "arguments": {"city": "Lisbon", "request_heartbeat": true}}],
                   "expect_in_prompt": ["[tool definition] weather"]},
                  {"text": "Sunny in Lisbon."}
                ]}""");
        fx = new AgentFixture(dir).open(b -> b.model("script:live", model).tool(AiTool.of("install",
                "Installs the weather tool.", Nothing.class, SafetyTier.SIDE_EFFECTING, (in, ctx) -> {
                    fx.runtime.registerTool(weather("Sunny"));
                    Agent me = fx.runtime.agent("ana", "helper");
                    List<String> tools = new ArrayList<>(me.definition().tools());
                    tools.add("weather");
                    fx.runtime.changeTools("ana", "helper", tools);
                    return "installed";
                })).approvalHandler(r -> java.util.concurrent.CompletableFuture.completedFuture(
                        dev.engram.framework.ApprovalDecision.approve())));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:live").addTools("install").build());
        assertThat(agent.compilePrompt().tools()).extracting(ToolDefinition::name).doesNotContain("weather");

        AgentResponse r = agent.send("How is the weather in Lisbon?");

        assertThat(r.toolResults()).extracting(t -> t.content()).containsExactly("installed", "Sunny in Lisbon");
        assertThat(r.reply()).contains("Sunny in Lisbon.");
        assertThat(model.requests().getFirst().tools()).extracting(ToolDefinition::name).doesNotContain("weather");
        assertThat(fx.store.agents().get(agent.scope()).orElseThrow().definition()).contains("\"weather\"");
    }

    @Test
    void changingToolsToOneTheRuntimeLacksIsRefusedAndChangesNothing() {
        fx = new AgentFixture(dir).open("script:x", script("{\"turns\": []}"));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:x").build());
        List<String> before = agent.definition().tools();
        assertThatThrownBy(() -> fx.runtime.changeTools("ana", "helper", List.of("block", "teleport")))
                .isInstanceOf(AgentException.class).hasMessageContaining("[teleport]");
        assertThat(fx.runtime.agent("ana", "helper").definition().tools()).isEqualTo(before);
        assertThat(fx.store.agents().get(agent.scope()).orElseThrow().definition()).doesNotContain("teleport");
    }

    @Test
    void modifyChangesTheDefinitionALoadedAgentUsesAndRefusesAnotherIdOrUser() {
        ScriptedChatModel model = script("""
                {"turns": [{"text": "Hello.", "expect_in_prompt": ["You are a terse pirate."]}]}""");
        fx = new AgentFixture(dir).open("script:m", model);
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").name("helper").model("script:m").build());
        fx.runtime.modify("ana", "helper", d -> d.toBuilder().name("pirate").systemPrompt("You are a terse pirate.")
                .tags(List.of("sea")).build());
        assertThat(agent.send("Hi").reply()).contains("Hello.");
        assertThat(fx.runtime.findByName("ana", "pirate")).isPresent();
        assertThat(fx.store.agents().get(agent.scope()).orElseThrow().definition()).contains("terse pirate", "\"sea\"");

        String stored = fx.store.agents().get(agent.scope()).orElseThrow().definition();
        assertThatThrownBy(() -> fx.runtime.modify("ana", "helper", d -> d.toBuilder().id("other").build()))
                .isInstanceOf(AgentException.class).hasMessageContaining("id and user cannot change");
        assertThatThrownBy(() -> fx.runtime.modify("ana", "helper", d -> d.toBuilder("ben").build()))
                .isInstanceOf(AgentException.class);
        assertThatThrownBy(() -> fx.runtime.modify("ana", "helper", d -> d.toBuilder().tools("teleport").build()))
                .isInstanceOf(AgentException.class).hasMessageContaining("teleport");
        assertThat(fx.store.agents().get(agent.scope()).orElseThrow().definition()).isEqualTo(stored);
    }

    @Test
    void currentGivesALoadedAgentTheDefinitionAnotherRuntimeStoredAndForgetsADeletedOne() {
        fx = new AgentFixture(dir).open("script:m", script("{\"turns\": []}"));
        fx.runtime.create(AgentDefinition.builder("ana").id("helper").name("helper").model("script:m").build());
        try (AgentRuntime other = AgentRuntime.builder(fx.store, fx.search).model("script:m", script("{\"turns\": []}")).build()) {
            Agent there = other.agent("ana", "helper");
            fx.runtime.modify("ana", "helper", d -> d.toBuilder().systemPrompt("Changed elsewhere.").build());
            assertThat(other.agent("ana", "helper").definition().systemPrompt()).as("agent() keeps what it loaded")
                    .isNotEqualTo("Changed elsewhere.");
            assertThat(other.current("ana", "helper")).isSameAs(there);
            assertThat(there.definition().systemPrompt()).isEqualTo("Changed elsewhere.");
            fx.runtime.delete("ana", "helper");
            assertThatThrownBy(() -> other.current("ana", "helper")).isInstanceOf(AgentNotFoundException.class);
        }
    }

    @Test
    void aBuiltInIsReplacedOnlyExplicitly() {
        ScriptedChatModel model = script("""
                {"turns": [{"tool_calls": [{"name": "weather", "arguments": {"city": "Porto"}}]}]}""");
        fx = new AgentFixture(dir).open(b -> b.model("script:w", model).tool(weather("Rain")));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:w").addTools("weather").build());
        assertThatThrownBy(() -> fx.runtime.registerTool(weather("Snow"))).hasMessageContaining("replace it explicitly with replaceTool");
        assertThatThrownBy(() -> fx.runtime.registerTool(DynamicTool.from(AiTool.of("block", "Mine.", Nothing.class,
                SafetyTier.READ_ONLY, (in, ctx) -> "x")))).hasMessageContaining("already provided by the runtime");
        assertThatThrownBy(() -> fx.runtime.replaceTool(DynamicTool.from(AiTool.of("nowhere", "None.", Nothing.class,
                SafetyTier.READ_ONLY, (in, ctx) -> "x")))).hasMessageContaining("no tool 'nowhere' to replace");
        fx.runtime.replaceTool(weather("Sun"));
        assertThat(agent.send("Porto?").toolResults().getFirst().content()).isEqualTo("Sun in Porto");
    }
}

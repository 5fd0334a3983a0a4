package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.model.ScriptedChatModel;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tool called in an agent's turn finds the agent's own model in its context. */
class ToolContextModelTest {
    @TempDir
    Path dir;

    private AgentFixture fx;

    record Nothing(Optional<String> note) {
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void aToolInATurnGetsTheAgentsModelFromItsContext() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "which_model", "arguments": {"request_heartbeat": true}}]},
                  {"text": "done"}
                ]}""");
        fx = new AgentFixture(dir).open(b -> b.model("script:own", model).tool(AiTool.of("which_model",
                "Names the model the agent runs on.", Nothing.class, SafetyTier.READ_ONLY,
                (in, ctx) -> ctx.chatModel().map(m -> m == model ? "same model" : "another model").orElse("no model"))));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:own")
                .addTools("which_model").build());

        AgentResponse r = agent.send("Which model?");

        assertThat(r.toolResults()).extracting(t -> t.content()).containsExactly("same model");
    }
}

package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ToolDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An agent's own workspace, shell and web tools: kept with it, offered wherever it runs. */
class ToolAccessTest {
    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void anAgentKeepsItsWorkspaceAndShellAcrossRestartsAndUsesThem() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.writeString(ws.resolve("plan.md"), "Ship on Friday\n");
        String turns = """
                {"turns": [
                  {"tool_calls": [{"name": "file_read", "arguments": {"path": "plan.md", "request_heartbeat": true}}]},
                  {"text": "The plan says Friday.", "expect_in_prompt": ["Ship on Friday"]}
                ]}""";
        fx = new AgentFixture(dir).open("script:coder", script(turns));
        fx.runtime.create(AgentDefinition.builder("ana").id("coder").model("script:coder")
                .toolAccess(new ToolAccess(Optional.of(ws), List.of("ls"), false)).build());
        fx.close();
        fx.open(b -> b.model("script:coder", script(turns)));

        Agent coder = fx.runtime.agent("ana", "coder");
        assertThat(coder.compilePrompt().tools()).extracting(ToolDefinition::name).contains("file_read", "read_many_files",
                "file_delete", "shell_exec").doesNotContain("web_fetch");
        AgentResponse r = coder.send("What does the plan say?");
        assertThat(r.reply()).contains("The plan says Friday.");
    }

    @Test
    void anExistingAgentIsGivenAWorkspaceLaterAndKeepsItAcrossARestart() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.writeString(ws.resolve("plan.md"), "Ship on Friday\n");
        String turns = """
                {"turns": [
                  {"tool_calls": [{"name": "file_read", "arguments": {"path": "plan.md", "request_heartbeat": true}}]},
                  {"text": "Friday.", "expect_in_prompt": ["Ship on Friday"]}
                ]}""";
        fx = new AgentFixture(dir).open("script:coder", script(turns));
        Agent coder = fx.runtime.create(AgentDefinition.builder("ana").id("coder").model("script:coder").build());
        assertThat(coder.compilePrompt().tools()).extracting(ToolDefinition::name).doesNotContain("file_read");

        assertThatThrownBy(() -> fx.runtime.changeToolAccess("ana", "coder",
                new ToolAccess(Optional.of(dir.resolve("missing")), List.of(), false)))
                .isInstanceOf(AgentException.class).hasMessageContaining("cannot be used");
        assertThat(coder.definition().toolAccess()).as("a refused change changes nothing").isEqualTo(ToolAccess.NONE);

        fx.runtime.changeToolAccess("ana", "coder", new ToolAccess(Optional.of(ws), List.of(), false));
        assertThat(coder.compilePrompt().tools()).extracting(ToolDefinition::name).contains("file_read", "send_message");
        fx.close();
        fx.open(b -> b.model("script:coder", script(turns)));
        Agent reloaded = fx.runtime.agent("ana", "coder");
        assertThat(reloaded.definition().toolAccess().workspace()).contains(ws.toAbsolutePath().normalize());
        assertThat(reloaded.send("What does the plan say?").reply()).contains("Friday.");

        fx.runtime.changeToolAccess("ana", "coder", ToolAccess.NONE);
        assertThat(reloaded.compilePrompt().tools()).extracting(ToolDefinition::name).doesNotContain("file_read")
                .contains("send_message", "block");
    }

    @Test
    void toolsForASessionAreOfferedButNeverStoredEvenWhenTheAgentChangesMeanwhile() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.writeString(ws.resolve("plan.md"), "Ship on Friday\n");
        String turns = """
                {"turns": [
                  {"tool_calls": [{"name": "file_read", "arguments": {"path": "plan.md", "request_heartbeat": true}}]},
                  {"text": "Friday.", "expect_in_prompt": ["Ship on Friday"]}
                ]}""";
        fx = new AgentFixture(dir).open("script:coder", script(turns));
        Agent coder = fx.runtime.create(AgentDefinition.builder("ana").id("coder").model("script:coder").build());

        assertThatThrownBy(() -> fx.runtime.useToolAccess("ana", "coder",
                new ToolAccess(Optional.of(dir.resolve("missing")), List.of(), false)))
                .isInstanceOf(AgentException.class).hasMessageContaining("cannot be used");
        assertThat(coder.definition().toolAccess()).as("a refused session changes nothing").isEqualTo(ToolAccess.NONE);

        fx.runtime.useToolAccess("ana", "coder", new ToolAccess(Optional.of(ws), List.of(), true));
        assertThat(coder.compilePrompt().tools()).extracting(ToolDefinition::name).contains("file_read", "web_fetch");
        assertThat(coder.send("What does the plan say?").reply()).contains("Friday.");
        fx.runtime.modify("ana", "coder", d -> d.toBuilder().description("works on the plan").build());
        assertThat(coder.compilePrompt().tools()).extracting(ToolDefinition::name).as("the session's tools outlive a change")
                .contains("file_read", "web_fetch");
        assertThat(fx.store.agents().get(coder.scope()).orElseThrow().definition())
                .contains("works on the plan").doesNotContain("file_read").doesNotContain("web_fetch").doesNotContain(ws.toString());

        fx.close();
        fx.open(b -> b.model("script:coder", script(turns)));
        Agent reloaded = fx.runtime.agent("ana", "coder");
        assertThat(reloaded.definition().toolAccess()).isEqualTo(ToolAccess.NONE);
        assertThat(reloaded.definition().description()).contains("works on the plan");
        assertThat(reloaded.compilePrompt().tools()).extracting(ToolDefinition::name).doesNotContain("file_read", "web_fetch");
    }

    @Test
    void aShellWithoutAWorkspaceOrAMissingWorkspaceIsRefused() {
        assertThatThrownBy(() -> new ToolAccess(Optional.empty(), List.of("git"), false)).hasMessageContaining("needs a workspace");
        assertThatThrownBy(() -> new ToolAccess(Optional.of(dir), List.of("rm -rf"), false)).hasMessageContaining("a name such as git");
        fx = new AgentFixture(dir).open("script:x", script("{\"turns\": []}"));
        assertThatThrownBy(() -> fx.runtime.create(AgentDefinition.builder("ana").id("lost").model("script:x")
                .toolAccess(new ToolAccess(Optional.of(dir.resolve("missing")), List.of(), false)).build()))
                .isInstanceOf(AgentException.class).hasMessageContaining("cannot be used");
        assertThat(fx.runtime.list("ana")).isEmpty();
    }
}

package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Block;
import dev.engram.memory.MemoryPermission;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One block in several agents' prompts, attached from the definition, each with its own permission. */
class SharedBlocksTest {
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
    void aBlockAttachedFromTheDefinitionIsEditedByOneAndSeenByTheOther() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "core_memory_append", "arguments": {"label": "team", "content": "Launch moved to Friday"}}]},
                  {"text": "Noted."}
                ]}""");
        fx = new AgentFixture(dir).open("script:team", model);
        Agent lead = fx.runtime.create(AgentDefinition.builder("ana").id("lead").model("script:team")
                .block("team", "Shared team facts", "Launch on Monday").build());
        Agent helper = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:team")
                .addTools("core_memory_append").sharedBlock("lead", "team", MemoryPermission.APPEND).build());
        Agent reader = fx.runtime.create(AgentDefinition.builder("ana").id("reader").model("script:team")
                .sharedBlock("lead", "team", MemoryPermission.READ_ONLY).build());

        helper.send("The launch moved to Friday.");

        assertThat(lead.compilePrompt().systemText()).contains("Launch on Monday\nLaunch moved to Friday");
        assertThat(reader.compilePrompt().systemText()).contains("Launch moved to Friday", "permission=\"read_only\"",
                "shared_by=\"lead\"");
        Block seen = fx.store.blocks().get(helper.scope(), "team").orElseThrow();
        assertThat(seen.permission()).isEqualTo(MemoryPermission.APPEND);
        // The attachment is part of the definition: it survives a restart and shows in the export.
        fx.close();
        fx.open(b -> b.model("script:team", model));
        assertThat(fx.runtime.agent("ana", "reader").definition().sharedBlocks()).singleElement()
                .isEqualTo(new BlockAttachment("lead", "team", MemoryPermission.READ_ONLY));
        assertThat(fx.runtime.exportAgent("ana", "reader")).contains("\"shared_blocks\"", "\"owner_agent_id\" : \"lead\"");
    }

    @Test
    void anAttachmentOfAMissingBlockOrAClashingLabelIsRefusedAndNothingIsStored() {
        fx = new AgentFixture(dir).open("script:team", script("{\"turns\": []}"));
        fx.runtime.create(AgentDefinition.builder("ana").id("lead").model("script:team").block("team", "", "facts").build());
        assertThatThrownBy(() -> fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:team")
                .sharedBlock("lead", "nothing", MemoryPermission.READ_ONLY).build()))
                .isInstanceOf(AgentException.class).hasMessageContaining("which has no such block of its own");
        assertThat(fx.runtime.list("ana")).extracting(AgentDefinition::id).containsExactly("lead");
        assertThatThrownBy(() -> AgentDefinition.builder("ana").id("helper").model("script:team").block("team", "", "mine")
                .sharedBlock("lead", "team", MemoryPermission.READ_ONLY).build())
                .hasMessageContaining("would have two blocks labelled 'team'");
        assertThatThrownBy(() -> AgentDefinition.builder("ana").id("lead").model("script:team")
                .sharedBlock("lead", "team", MemoryPermission.READ_ONLY).build()).hasMessageContaining("its own block");
    }
}

package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import static org.assertj.core.api.Assertions.fail;

import dev.engram.memory.Archive;
import dev.engram.memory.BlockStore;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.BlockUpdate;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.SqliteOptions;
import dev.engram.memory.sqlite.SqliteBackend;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parts of the system prompt kept from step to step (instructions, memory blocks) are rendered again whenever
 * what they show changed: a block edited by the agent's own tool within a turn, by the API between turns, by another
 * process sharing the storage, and the agent's definition modified; and they are reused while nothing changed.
 */
class PromptPartsTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;
    AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent agent(String script) {
        fx = new AgentFixture(dir).open("script:test", script(script));
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test")
                .systemPrompt("You are Helper.").block("human", "What I know about the user", "Ana.").build());
    }

    @Test
    void aBlockEditedByTheAgentsToolShowsInTheNextStepsPrompt() {
        Agent agent = agent("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": " Likes tea."}}],
                   "expect_in_prompt": ["Ana.\\n</value>"]},
                  {"text": "Noted.", "expect_in_prompt": ["Likes tea.\\n</value>"]}
                ]}""");
        assertThat(agent.send("I like tea.").reply()).contains("Noted.");
        assertThat(fx.store.blocks().get(ANA, "human").orElseThrow().value()).endsWith("Likes tea.");
    }

    @Test
    void aBlockEditedThroughTheStoreOrByAnotherProcessShowsInTheNextPromptAndAnUnchangedOneIsReused() {
        Agent agent = agent("{\"turns\": []}");
        String first = agent.compilePrompt().systemText();
        assertThat(first).contains("Ana.");
        // nothing changed: the parts are the ones rendered before
        PromptParts.Part blocks = agent.parts.blocks(fx.store.blocks().list(ANA), "helper");
        agent.compilePrompt();
        assertThat(agent.parts.blocks(fx.store.blocks().list(ANA), "helper")).isSameAs(blocks);

        // the API's way: the store, in this process
        fx.store.blocks().replace(ANA, "human", "Ana, from Lisbon.", BlockStore.ANY_VERSION);
        assertThat(agent.compilePrompt().systemText()).contains("Ana, from Lisbon.").doesNotContain("Ana.\n");

        // another process (another server on the same storage): its own store over the same file
        try (MemoryStore other = MemoryStore.over(SqliteBackend.open(SqliteOptions.builder(dir.resolve("memory.db")).build()))) {
            other.blocks().update(ANA, "human", BlockUpdate.of(other.blocks().get(ANA, "human").orElseThrow())
                    .withDescription("Who the user is"), BlockStore.ANY_VERSION);
            other.blocks().append(ANA, "human", " Likes trains.", BlockStore.ANY_VERSION);
        }
        String now = agent.compilePrompt().systemText();
        assertThat(now).contains("Ana, from Lisbon.").contains("Likes trains.\n</value>").contains("<description>Who the user is</description>");
        assertThat(agent.compilePrompt().tokens()).isGreaterThan(0);
    }

    @Test
    void aModifiedDefinitionsInstructionsShowInTheNextPrompt() {
        Agent agent = agent("{\"turns\": []}");
        assertThat(agent.compilePrompt().systemText()).startsWith("You are Helper.");
        int before = agent.compilePrompt().tokens();
        Agent changed = fx.runtime.modify("ana", "helper", d -> d.toBuilder()
                .systemPrompt("You are Helper, a careful assistant who writes long, precise answers.").build());
        assertThat(changed.compilePrompt().systemText()).startsWith("You are Helper, a careful assistant");
        assertThat(changed.compilePrompt().tokens()).isGreaterThan(before);
    }

    /** The agent with a message in its context (so its context read follows the change log, not reads it all). */
    private Agent agentWithContext() {
        Agent agent = agent("{\"turns\": []}");
        fx.store.messages().append(ANA, NewMessage.user("default", "Hello."));
        agent.compilePrompt();
        return agent;
    }

    private MemoryStore otherProcess() {
        return MemoryStore.over(SqliteBackend.open(SqliteOptions.builder(dir.resolve("memory.db")).build()));
    }

    /** Whether the agent's kept blocks and archives are used as kept, without a read (the reads fail the test). */
    private void keptWithoutARead(Agent agent) {
        agent.parts.storedBlocks(ANA, () -> fail("the blocks were read again with nothing changed"));
        agent.parts.storedArchives(ANA, () -> fail("the archives were read again with nothing changed"));
    }

    @Test
    void aFolderAttachedOrDetachedElsewhereShowsInTheNextPromptAndNoFolderIsNotReadAgain() {
        Agent agent = agentWithContext();
        assertThat(agent.compilePrompt().systemText()).doesNotContain("<directories>");
        agent.parts.storedFolders(ANA, () -> fail("no folder attached and nothing changed, yet read again"));
        dev.engram.memory.Folder folder;
        try (MemoryStore other = otherProcess()) {
            folder = other.folders().create("ana", "recipes", "Ana's recipes", "", dev.engram.memory.Metadata.empty());
            other.folders().agents().attach(ANA, folder.id(), dev.engram.memory.FileLimits.forContextWindow(128_000));
        }
        assertThat(agent.compilePrompt().systemText()).contains("<directory name=\"recipes\">");
        // attached folders are read at every step: their description changed elsewhere shows
        fx.store.folders().update("ana", folder.withName("cooking"));
        assertThat(agent.compilePrompt().systemText()).contains("<directory name=\"cooking\">");
        try (MemoryStore other = otherProcess()) {
            other.folders().agents().detach(ANA, folder.id());
        }
        assertThat(agent.compilePrompt().systemText()).doesNotContain("<directories>");
        agent.parts.storedFolders(ANA, () -> fail("no folder attached and nothing changed, yet read again"));
    }

    @Test
    void aBlockSharedOrUnsharedByAnotherProcessShowsInTheNextPromptAndUnchangedBlocksAreNotReadAgain() {
        Agent agent = agentWithContext();
        fx.runtime.create(AgentDefinition.builder("ana").id("scribe").model("script:test")
                .block(NewBlock.builder("team").value("The team meets on Mondays.").build()).build());
        assertThat(agent.compilePrompt().systemText()).doesNotContain("label=\"team\"");
        agent.compilePrompt();
        keptWithoutARead(agent);

        try (MemoryStore other = otherProcess()) {
            other.blocks().share(Scope.of("ana", "scribe"), "team", "helper", MemoryPermission.READ_ONLY);
        }
        assertThat(agent.compilePrompt().systemText()).contains("label=\"team\"").contains("shared_by=\"scribe\"")
                .contains("The team meets on Mondays.");
        // the owner edits it (through the API): its sharer's next prompt shows the edit
        fx.store.blocks().replace(Scope.of("ana", "scribe"), "team", "The team meets on Tuesdays.", BlockStore.ANY_VERSION);
        assertThat(agent.compilePrompt().systemText()).contains("The team meets on Tuesdays.").doesNotContain("Mondays");
        try (MemoryStore other = otherProcess()) {
            other.blocks().unshare(Scope.of("ana", "scribe"), "team", "helper");
        }
        assertThat(agent.compilePrompt().systemText()).doesNotContain("label=\"team\"");
        keptWithoutARead(agent);
    }

    @Test
    void anArchiveAttachedRenamedDetachedOrDeletedElsewhereShowsInTheNextPrompt() {
        Agent agent = agentWithContext();
        assertThat(agent.compilePrompt().systemText()).doesNotContain("Shared archives");
        // the API's way, in this process
        Archive trips = fx.store.archives().create("ana", "Trips", "Where Ana went");
        fx.store.archives().attach(ANA, trips.id());
        assertThat(agent.compilePrompt().systemText()).contains("Shared archives your archival search also covers: 'Trips'.");
        keptWithoutARead(agent);
        try (MemoryStore other = otherProcess()) {
            other.archives().update("ana", trips.id(), "Voyages", "Where Ana went");
            assertThat(agent.compilePrompt().systemText()).contains("'Voyages'").doesNotContain("'Trips'");
            other.archives().detach(ANA, trips.id());
            assertThat(agent.compilePrompt().systemText()).doesNotContain("Shared archives");
            other.archives().attach(ANA, trips.id());
            assertThat(agent.compilePrompt().systemText()).contains("'Voyages'");
            other.archives().delete("ana", trips.id());
        }
        assertThat(agent.compilePrompt().systemText()).doesNotContain("Shared archives");
        keptWithoutARead(agent);
    }
}

package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.MemoryLimits;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * Creating an agent and importing an agent file (Engram's or Letta's, of one agent or several) is one unit of work
 * of the store: a failure at any point, a check or a write half-way, leaves no agent, no row, no change-log event
 * and no loaded agent behind, and the error says that nothing was stored.
 */
class AtomicImportTest {
    private static final String OPENAI = "\"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\"}";

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private AgentFixture open() {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        return fx;
    }

    private static String lettaAgent(String name, String extra) {
        return "{\"name\": \"" + name + "\", " + OPENAI + extra + "}";
    }

    /** Everything user {@code user} could have left in the store, and the change log, are as before. */
    private void assertNothingStoredFor(String user, long seqBefore, String... agentIds) {
        assertThat(fx.store.agents().list(user)).as("agents of %s", user).isEmpty();
        for (String id : agentIds) {
            Scope scope = Scope.of(user, id);
            assertThat(fx.store.blocks().list(scope)).as("blocks of %s", id).isEmpty();
            assertThat(fx.store.messages().count(scope)).as("messages of %s", id).isZero();
            assertThat(fx.store.archival().count(scope)).as("archival of %s", id).isZero();
            assertThatThrownBy(() -> fx.runtime.agent(user, id)).as("loaded agent %s", id)
                    .isInstanceOf(AgentNotFoundException.class);
        }
        assertThat(fx.store.changes().lastSeq()).as("change log").isEqualTo(seqBefore);
    }

    @Test
    void aLettaFileWithTwoAgentsOfOneNameStoresNothingAndSaysSo() {
        open();
        long before = fx.store.changes().lastSeq();
        String file = "{\"agents\": [" + lettaAgent("Twin", ", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]")
                + ", " + lettaAgent("Twin", "") + "]}";
        assertThatThrownBy(() -> fx.runtime.importLettaAgentFile(AgentImport.json(file, "twins.af").user("ana")))
                .isInstanceOf(AgentException.class)
                .hasMessage("Agent file twins.af holds two agents named 'Twin'; names are unique per user: rename one in the "
                        + "file. Nothing was stored.");
        assertNothingStoredFor("ana", before, "twin", "twin-2");
    }

    @Test
    void aLettaImportThatFailsAtItsSecondAgentsWritesStoresNothingOfTheFirst() {
        fx = new AgentFixture(dir);
        fx.limits = new MemoryLimits(5_000);
        fx.open("script:test", script("{\"turns\": []}"));
        long before = fx.store.changes().lastSeq();
        String file = "{\"agents\": [" + lettaAgent("First", ", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]")
                + ", " + lettaAgent("Second", ", \"messages\": [{\"role\": \"user\", \"content\": \"" + "x".repeat(5_001) + "\"}]")
                + "]}";
        assertThatThrownBy(() -> fx.runtime.importLettaAgentFile(AgentImport.json(file, "two.af").user("ana")))
                .hasMessageContaining("content is 5001 characters long; this store accepts at most 5000");
        assertNothingStoredFor("ana", before, "first", "second");
    }

    @Test
    void aLettaImportRacingAConcurrentCreateOfOneOfItsNamesStoresNothing() throws Exception {
        open();
        CountDownLatch otherCreated = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread other = Thread.ofPlatform().start(() -> fx.store.useTransaction(tx -> {
            tx.agents().create(Scope.of("ana", "elsewhere"), "Second", "{}");
            otherCreated.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        otherCreated.await();
        String file = "{\"agents\": [" + lettaAgent("First", "") + ", " + lettaAgent("Second", "") + "]}";
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread importer = Thread.ofPlatform().start(() -> {
            try {
                fx.runtime.importLettaAgentFile(AgentImport.json(file, "two.af").user("ana"));
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        while (importer.getState() != Thread.State.WAITING && importer.getState() != Thread.State.TERMINATED) {
            Thread.onSpinWait(); // the import waits for the other unit to end (it must not check before and write after)
        }
        release.countDown();
        other.join();
        importer.join();
        assertThat(failure.get()).isInstanceOf(AgentException.class)
                .hasMessage("User 'ana' already has an agent named 'Second'. Nothing was stored.");
        assertThat(fx.store.agents().list("ana")).extracting(r -> r.scope().agentId()).containsExactly("elsewhere");
        assertThat(fx.store.blocks().list(Scope.of("ana", "first"))).isEmpty();
    }

    /** The Engram agent file of a fresh agent {@code helper} of ana, edited by {@code edit}, written to a file. */
    private Path engramFile(java.util.function.Consumer<ObjectNode> edit) throws Exception {
        fx.runtime.create(AgentDefinition.builder("ana").id("helper").name("Helper").model("script:test")
                .block("human", "About the user", "Ana").block("persona", "Who I am", "A helper").build());
        ObjectNode root = (ObjectNode) Heartbeats.JSON.readTree(fx.runtime.exportAgent("ana", "helper"));
        edit.accept(root);
        return java.nio.file.Files.writeString(dir.resolve("helper.json"), root.toString());
    }

    @Test
    void anEngramImportWhoseBlockFailsAfterTheAgentRowIsWrittenLeavesNothing() throws Exception {
        open();
        Path file = engramFile(root -> root.withArray("blocks").add(root.withArray("blocks").get(0).deepCopy()));
        long before = fx.store.changes().lastSeq();
        assertThatThrownBy(() -> fx.runtime.importAgent(AgentImport.of(file).user("ben").agentId("copy")))
                .isInstanceOf(AgentException.class)
                .hasMessageStartingWith("Agent 'Helper' was not created: Agent 'copy' already has a block labelled 'human'")
                .hasMessageEndingWith("Nothing was stored.");
        assertNothingStoredFor("ben", before, "copy");
    }

    @Test
    void anEngramImportWhoseArchivalFailsAfterTheAgentAndBlocksAreWrittenLeavesNothing() throws Exception {
        fx = new AgentFixture(dir);
        fx.limits = new MemoryLimits(5_000);
        fx.open("script:test", script("{\"turns\": []}"));
        Path file = engramFile(root -> root.withArray("archival").addObject().put("content", "y".repeat(5_001)));
        long before = fx.store.changes().lastSeq();
        assertThatThrownBy(() -> fx.runtime.importAgent(AgentImport.of(file).user("ben").agentId("copy")))
                .hasMessageContaining("content is 5001 characters long; this store accepts at most 5000");
        assertNothingStoredFor("ben", before, "copy");
        // The same file without the entry imports whole, and the agent is loaded.
        fx.store.archival().insert(Scope.of("ana", "helper"), NewArchivalEntry.of("short"));
        Agent copy = fx.runtime.importAgent(AgentImport.json(fx.runtime.exportAgent("ana", "helper"), "again").user("ben").agentId("copy"));
        assertThat(fx.runtime.agent("ben", "copy")).isSameAs(copy);
        assertThat(fx.store.blocks().list(copy.scope())).hasSize(2);
        assertThat(fx.store.archival().count(copy.scope())).isOne();
    }

    @Test
    void anAgentCreatedInsideAUnitThatFailsLeavesNeitherItsRowNorItsBlocksNorALoadedAgent() {
        open();
        long before = fx.store.changes().lastSeq();
        AgentDefinition helper = AgentDefinition.builder("ana").id("helper").name("Helper").model("script:test")
                .block("human", "About the user", "Ana").block("persona", "Who I am", "A helper").build();
        assertThatThrownBy(() -> fx.store.useTransaction(tx -> {
            Agent created = fx.runtime.create(helper);
            assertThat(tx.blocks().list(created.scope())).as("the create joined the unit").hasSize(2);
            assertThat(fx.runtime.agent("ana", "helper").definition().name()).isEqualTo("Helper");
            throw new IllegalStateException("the caller's work fails after the create");
        })).hasMessage("the caller's work fails after the create");
        assertNothingStoredFor("ana", before, "helper");
        // Created again outside any unit: stored and loaded.
        Agent again = fx.runtime.create(helper);
        assertThat(fx.runtime.agent("ana", "helper")).isSameAs(again);
    }
}

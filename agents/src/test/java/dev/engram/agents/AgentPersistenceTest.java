package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ApprovalMode;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agents survive restarts, export and import; bad definitions change nothing. */
class AgentPersistenceTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private AgentDefinition helper() {
        return AgentDefinition.builder("ana").id("helper").name("Helper").model("script:test")
                .systemPrompt("You are Ana's helper.")
                .block(NewBlock.builder("human").description("About the user").limit(2000).build())
                .block(NewBlock.builder("persona").value("I am careful.").permission(MemoryPermission.READ_ONLY).build())
                .tools("send_message", "block", "search").denyTools("search").approvalMode(ApprovalMode.ASK)
                .contextWindowTokens(8_000).maxSteps(4).build();
    }

    @Test
    void anAgentReloadedAfterARestartContinuesTheConversation() {
        fx = new AgentFixture(dir).open("script:test", script("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Name: Ana"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Hi Ana, noted."}}]}
                ]}"""));
        fx.runtime.create(AgentDefinition.builder("ana").id("helper").name("Helper").model("script:test")
                .block("human", "About the user", "").approvalMode(ApprovalMode.YOLO).build()).send("I'm Ana.");
        List<ConversationMessage> before = fx.inContext(ANA);
        fx.close();

        // A new process: the agent is loaded lazily from disk, with its blocks and in-context messages.
        fx = new AgentFixture(dir).open("script:test", script("""
                {"turns": [
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "You told me: Ana."}}],
                   "expect_in_prompt": ["Name: Ana", "[user] I'm Ana.", "Hi Ana, noted.", "[user] What's my name?"]}
                ]}"""));
        Agent reloaded = fx.runtime.agent("ana", "helper");
        assertThat(reloaded.definition().approvalMode()).isEqualTo(ApprovalMode.YOLO);
        assertThat(reloaded.inContextMessages()).isEqualTo(before);
        AgentResponse r = reloaded.send("What's my name?");
        assertThat(r.reply()).contains("You told me: Ana.");
        assertThat(fx.inContext(ANA)).hasSize(before.size() + 3);
    }

    @Test
    void theDefinitionIsPersistedWithEverySetting() {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        AgentDefinition d = helper();
        fx.runtime.create(d);
        fx.close();
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        Agent loaded = fx.runtime.findByName("ana", "Helper").orElseThrow();
        assertThat(loaded.definition()).isEqualTo(d);
        assertThat(fx.store.blocks().get(ANA, "persona").orElseThrow().permission()).isEqualTo(MemoryPermission.READ_ONLY);
        assertThat(loaded.compilePrompt().tools()).extracting(t -> t.name()).containsExactly("block", "send_message");
        assertThat(fx.runtime.list("ana")).containsExactly(d);
    }

    @Test
    void aDuplicateNameIsRejectedAndNothingIsStored() {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        fx.runtime.create(helper());
        AgentDefinition twin = AgentDefinition.builder("ana").id("other").name("Helper").model("script:test")
                .block("notes", "", "x").build();
        assertThatThrownBy(() -> fx.runtime.create(twin)).isInstanceOf(AgentException.class)
                .hasMessageContaining("already has an agent named 'Helper'");
        assertThat(fx.store.blocks().list(Scope.of("ana", "other"))).isEmpty();
        assertThat(fx.runtime.list("ana")).hasSize(1);
    }

    @Test
    void anUnknownToolIsRejectedAndNothingIsStored() {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        AgentDefinition d = AgentDefinition.builder("ana").id("helper").model("script:test").tools("send_message", "teleport")
                .block("human", "", "").build();
        assertThatThrownBy(() -> fx.runtime.create(d)).isInstanceOf(AgentException.class)
                .hasMessageContaining("names tools this runtime does not have: [teleport]");
        assertThat(fx.store.agents().list("ana")).isEmpty();
        assertThat(fx.store.blocks().list(ANA)).isEmpty();
    }

    @Test
    void builderRejectsBadSettingsWithASentence() {
        assertThatThrownBy(() -> AgentDefinition.builder("ana").build()).hasMessageContaining("an agent needs a model");
        assertThatThrownBy(() -> AgentDefinition.builder("ana").id("has space")).hasMessageContaining("may contain only letters");
        assertThatThrownBy(() -> AgentDefinition.builder("ana").contextWindowTokens(10)).hasMessageContaining("at least 1024");
        assertThatThrownBy(() -> AgentDefinition.builder("ana").maxSteps(0)).hasMessageContaining("step cap");
        assertThatThrownBy(() -> AgentDefinition.builder("ana").model("m").block("a", "", "").block("a", "", "").build())
                .hasMessageContaining("two blocks labelled 'a'");
        assertThatThrownBy(() -> AgentDefinition.builder(" ")).hasMessageContaining("user id");
    }

    @Test
    void unknownAgentIsAClearError() {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        assertThatThrownBy(() -> fx.runtime.agent("ana", "nobody")).isInstanceOf(AgentNotFoundException.class)
                .hasMessage("User 'ana' has no agent with id 'nobody'.");
        assertThat(fx.runtime.findByName("ana", "nobody")).isEmpty();
    }

    @Test
    void deleteRemovesTheDefinitionAndKeepsTheMemory() {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        fx.runtime.create(helper());
        assertThat(fx.runtime.delete("ana", "helper")).isTrue();
        assertThat(fx.runtime.delete("ana", "helper")).isFalse();
        assertThatThrownBy(() -> fx.runtime.agent("ana", "helper")).isInstanceOf(AgentNotFoundException.class);
        assertThat(fx.store.blocks().get(ANA, "human")).isPresent();
    }

    @Test
    void exportAndImportCarryDefinitionBlocksArchivalAndMessages() throws Exception {
        fx = new AgentFixture(dir).open("script:test", script("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Likes tea"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Noted."}}]}
                ]}"""));
        fx.runtime.create(AgentDefinition.builder("ana").id("helper").name("Helper").model("script:test")
                .block("human", "About the user", "").build()).send("I like tea.");
        fx.store.archival().insert(ANA, NewArchivalEntry.labelled("trip", "Lisbon in May", List.of("travel")));
        fx.store.messages().markOutOfContext(ANA, List.of(fx.messages(ANA).getFirst().id()));
        Path file = dir.resolve("export/helper.json");
        fx.runtime.exportAgent("ana", "helper", file);

        Agent copy = fx.runtime.importAgent(AgentImport.of(file).user("ben").agentId("helper2"));

        Scope ben = Scope.of("ben", "helper2");
        assertThat(copy.definition().name()).isEqualTo("Helper");
        assertThat(fx.store.blocks().get(ben, "human").orElseThrow().value()).isEqualTo("Likes tea");
        assertThat(fx.store.archival().getByLabel(ben, "trip").orElseThrow().content()).isEqualTo("Lisbon in May");
        assertThat(fx.messages(ben)).extracting(ConversationMessage::content)
                .isEqualTo(fx.messages(ANA).stream().map(ConversationMessage::content).toList());
        assertThat(fx.messages(ben)).extracting(ConversationMessage::inContext)
                .isEqualTo(fx.messages(ANA).stream().map(ConversationMessage::inContext).toList());
        assertThat(copy.compilePrompt().systemText()).contains("Likes tea");
    }

    @Test
    void anImportedFileNeverChoosesTheModelEndpoint() throws Exception {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        fx.runtime.create(AgentDefinition.builder("ana").id("helper").name("Helper")
                .model("http://attacker.example/v1#gpt-4o").block("human", "About the user", "Ana").build());
        Path file = dir.resolve("helper.json");
        fx.runtime.exportAgent("ana", "helper", file);

        assertThatThrownBy(() -> fx.runtime.importAgent(AgentImport.of(file).user("ben")))
                .isInstanceOf(AgentException.class)
                .hasMessage("Agent file " + file + ": agent.model is not a model an agent file may choose: "
                        + "'http://attacker.example/v1#gpt-4o' is a model endpoint the operator has not allowed; "
                        + dev.engram.framework.ModelPolicy.providersOnly().allowed()
                        + "; or import it with a model of your choice (--model SPEC). Nothing was stored.");
        assertThat(fx.store.agents().list("ben")).isEmpty();

        Agent copy = fx.runtime.importAgent(AgentImport.of(file).user("ben").model("script:test"));
        assertThat(copy.definition().model()).isEqualTo("script:test");
        assertThat(fx.store.blocks().get(copy.scope(), "human").orElseThrow().value()).isEqualTo("Ana");
    }

    @Test
    void aBrokenAgentFileIsRejectedAndNothingIsStored() throws Exception {
        fx = new AgentFixture(dir).open("script:test", script("{\"turns\": []}"));
        Path notJson = Files.writeString(dir.resolve("bad.json"), "{not json");
        assertThatThrownBy(() -> fx.runtime.importAgent(AgentImport.of(notJson)))
                .isInstanceOf(AgentException.class).hasMessageContaining("is not valid JSON");
        Path wrongFormat = Files.writeString(dir.resolve("other.json"), "{\"format\": \"letta\"}");
        assertThatThrownBy(() -> fx.runtime.importAgent(AgentImport.of(wrongFormat)))
                .hasMessageContaining("is not an Engram agent file");
        Path noModel = Files.writeString(dir.resolve("nomodel.json"),
                "{\"format\": \"engram-agent\", \"version\": 1, \"agent\": {\"id\": \"a\", \"user_id\": \"ana\", \"name\": \"A\"}}");
        assertThatThrownBy(() -> fx.runtime.importAgent(AgentImport.of(noModel)))
                .hasMessageContaining("has no \"model\"");
        assertThat(fx.store.agents().list("ana")).isEmpty();
    }
}

package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Block;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.Scope;
import dev.engram.tools.PythonTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Letta's Agent Files: the five real files of {@code ../shared/data/agent-files} import as they are, run
 * a scripted conversation with their Letta-named tools against real storage, and export to a file that
 * imports back identically; malformed files change nothing and name the field.
 */
class LettaAgentFileTest {
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

    static Stream<String> files() {
        return Stream.of("memgpt_agent.af", "memgpt_agent_with_convo.af", "customer_service.af", "loop.af",
                "outreach_workflow_agent.af");
    }

    private static String read(String name) throws Exception {
        Path file = FILES.resolve(name);
        assumeTrue(Files.isRegularFile(file), "the shared agent files are absent (" + FILES.toAbsolutePath().normalize()
                + " exists only on the project's machines); skipping");
        return Files.readString(file);
    }

    private AgentFixture open(Consumer<AgentRuntime.Builder> config) {
        fx = new AgentFixture(dir).open(config);
        return fx;
    }

    private AgentFileImport importFile(String name, String user, Optional<String> model) throws Exception {
        AgentImport file = AgentImport.json(read(name), name).user(user);
        return fx.runtime.importLettaAgentFile(model.map(file::model).orElse(file));
    }

    @ParameterizedTest
    @MethodSource("files")
    void everyFileImportsAndItsAgentUsesItsLettaToolsOnRealStorage(String name) throws Exception {
        Map<String, dev.engram.framework.model.ChatModel> models = new java.util.concurrent.ConcurrentHashMap<>();
        open(b -> b.modelResolver(models::get));
        Agent agent = importFile(name, "ana", Optional.of("script:" + name)).agents().getFirst();
        List<String> labels = fx.store.blocks().list(agent.scope()).stream().map(Block::label).toList();
        List<String> calls = new java.util.ArrayList<>();
        String label = labels.isEmpty() ? "" : labels.getFirst();
        Map<String, String> samples = new java.util.LinkedHashMap<>();
        samples.put("memory_insert", "{\"label\": \"" + label + "\", \"new_str\": \"Imported fact\", \"insert_line\": 0}");
        samples.put("memory_replace", "{\"label\": \"" + label + "\", \"old_str\": \"Imported fact\", \"new_str\": \"Imported fact, confirmed\"}");
        samples.put("memory_rethink", "{\"label\": \"scratchpad\", \"new_memory\": \"Rethought\"}");
        samples.put("archival_memory_insert", "{\"content\": \"Imported archival fact\", \"tags\": [\"import\"]}");
        samples.put("archival_memory_search", "{\"query\": \"archival fact\"}");
        samples.put("conversation_search", "{\"query\": \"hello\"}");
        samples.forEach((tool, args) -> {
            if (agent.definition().tools().contains(tool) && (!tool.startsWith("memory_") || !label.isEmpty())) {
                String withHeartbeat = args.substring(0, args.length() - 1) + ", \"request_heartbeat\": true}";
                calls.add("{\"tool_calls\": [{\"name\": \"" + tool + "\", \"arguments\": " + withHeartbeat + "}]}");
            }
        });
        calls.add("{\"text\": \"Hello from the imported agent.\"}");
        models.put("script:" + name, script("{\"turns\": [" + String.join(", ", calls) + "]}"));
        long archivalBefore = fx.store.archival().count(agent.scope());

        AgentResponse r = agent.send("hello");

        assertThat(r.toolResults()).as("%s: %s", name, r.toolResults()).allSatisfy(t -> assertThat(t.status()).isEqualTo(ToolStatus.SUCCESS));
        assertThat(r.toolResults()).hasSize(calls.size() - 1);
        assertThat(r.reply()).contains("Hello from the imported agent.");
        if (agent.definition().tools().contains("memory_replace") && !label.isEmpty()) {
            assertThat(fx.store.blocks().get(agent.scope(), label).orElseThrow().value()).startsWith("Imported fact, confirmed\n");
        }
        if (agent.definition().tools().contains("memory_rethink")) {
            assertThat(fx.store.blocks().get(agent.scope(), "scratchpad").orElseThrow().value()).isEqualTo("Rethought");
        }
        if (agent.definition().tools().contains("archival_memory_insert")) {
            assertThat(fx.store.archival().count(agent.scope())).isEqualTo(archivalBefore + 1);
        }
    }

    @ParameterizedTest
    @MethodSource("files")
    void everyFileImportsAndExportsToAFileThatReadsBackIdentically(String name) throws Exception {
        // The operator allows the model the first import chose, so that the export reads back as it was written.
        open(b -> b.modelPolicy(dev.engram.framework.ModelPolicy.providersOnly().allowSpec("script:none")));
        AgentFileImport first = importFile(name, "ana", Optional.of("script:none"));
        assertThat(first.agents()).isNotEmpty();
        List<String> ids = first.agents().stream().map(Agent::id).toList();
        String exported = fx.runtime.exportLettaAgentFile("ana", ids);
        AgentFileImport second = fx.runtime.importLettaAgentFile(AgentImport.json(exported, "the export").user("ben"));
        String again = fx.runtime.exportLettaAgentFile("ben", second.agents().stream().map(Agent::id).toList());
        assertThat(again).isEqualTo(exported);
        for (int i = 0; i < ids.size(); i++) {
            Agent a = first.agents().get(i);
            Agent b = second.agents().get(i);
            assertThat(b.definition().toBuilder("ana").build()).isEqualTo(a.definition());
            assertThat(fx.store.blocks().list(b.scope())).extracting(Block::label, Block::value, Block::limit, Block::permission,
                    Block::description).isEqualTo(fx.store.blocks().list(a.scope()).stream().map(x -> org.assertj.core.groups.Tuple
                    .tuple(x.label(), x.value(), x.limit(), x.permission(), x.description())).toList());
            assertThat(meaning(fx.messages(b.scope()))).isEqualTo(meaning(fx.messages(a.scope())));
        }
        // The export follows Letta's AgentFileSchema: its required top-level fields, and ids on agents, blocks, tools, messages.
        var json = Heartbeats.JSON.readTree(exported);
        assertThat(json.propertyNames()).contains("agents", "groups", "blocks", "files", "sources", "tools", "mcp_servers");
        assertThat(json.path("agents")).allSatisfy(a -> assertThat(a.path("id").asString()).startsWith("agent-"));
        assertThat(json.path("blocks")).allSatisfy(b -> assertThat(b.path("id").asString()).startsWith("block-"));
        assertThat(json.path("tools")).allSatisfy(t -> assertThat(t.path("id").asString()).startsWith("tool-"));
    }

    /** The published format: Letta's {@code AgentFileSchema} from {@code ../shared/letta/openapi.json}, validated as JSON Schema. */
    @Test
    void theExportIsValidAgainstLettasPublishedAgentFileSchema() throws Exception {
        Path contract = Path.of(System.getProperty("engram.shared.data", "../../shared/data")).resolveSibling("letta").resolve("openapi.json");
        assumeTrue(Files.isRegularFile(contract), "../shared/letta/openapi.json is absent (it exists only on the project's machines); skipping");
        var components = Heartbeats.JSON.readTree(Files.readString(contract)).path("components");
        var schemaNode = Heartbeats.JSON.createObjectNode().put("$schema", "https://json-schema.org/draft/2020-12/schema")
                .put("$ref", "#/components/schemas/AgentFileSchema");
        schemaNode.set("components", components);
        var schema = com.networknt.schema.SchemaRegistry.withDefaultDialect(com.networknt.schema.SpecificationVersion.DRAFT_2020_12)
                .getSchema(schemaNode);
        open(b -> { });
        for (String name : files().toList()) {
            AgentFileImport imported = importFile(name, "ana", Optional.of("script:none"));
            String exported = fx.runtime.exportLettaAgentFile("ana", imported.agents().stream().map(Agent::id).toList());
            assertThat(schema.validate(Heartbeats.JSON.readTree(exported))).as("%s exported", name).isEmpty();
            fx.runtime.list("ana").forEach(d -> fx.runtime.delete("ana", d.id()));
        }
    }

    private static List<String> meaning(List<ConversationMessage> messages) {
        return messages.stream().map(m -> m.role() + "|" + m.content() + "|" + m.toolCalls() + "|" + m.toolCallId()
                + "|" + m.inContext()).toList();
    }

    @Test
    void theMemgptAgentKeepsItsPromptBlocksAndModelAndEditsMemoryWithLettasTools() throws Exception {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "memory_insert", "arguments": {"label": "human", "new_str": "Name: Sam", "insert_line": 0}}]},
                  {"tool_calls": [{"name": "memory_replace", "arguments": {"label": "human", "old_str": "Name: Sam", "new_str": "Name: Sam Lee"}}]},
                  {"tool_calls": [{"name": "conversation_search", "arguments": {"query": "Sam", "request_heartbeat": true}}]},
                  {"text": "Nice to meet you, Sam.", "expect_in_prompt": ["Name: Sam Lee"]}
                ]}""");
        open(b -> b.model("script:memgpt", model));
        AgentFileImport imported = importFile("memgpt_agent.af", "ana", Optional.empty());
        Agent agent = imported.agents().getFirst();
        AgentDefinition d = agent.definition();
        assertThat(d.id()).isEqualTo("memgpt_agent");
        assertThat(d.model()).isEqualTo("openai:gpt-4o-mini");
        assertThat(d.contextWindowTokens()).isEqualTo(32_000);
        assertThat(d.tools()).containsExactlyInAnyOrder("conversation_search", "memory_insert", "memory_replace");
        assertThat(d.declaredTools()).isEmpty();
        assertThat(fx.store.blocks().list(agent.scope())).extracting(Block::label).containsExactly("human", "persona");
        assertThat(fx.store.blocks().get(agent.scope(), "human").orElseThrow().limit()).isEqualTo(20_000);

        // The same agent, now on a scripted model, talks and edits its memory with Letta's tools.
        Agent talking = fx.runtime.create(d.toBuilder().id("memgpt-2").name("memgpt 2").model("script:memgpt").build());
        fx.store.blocks().replace(talking.scope(), "human", "Likes jazz", dev.engram.memory.BlockStore.ANY_VERSION);
        AgentResponse r = talking.send("Hi, I'm Sam.");
        assertThat(r.toolResults()).extracting(ToolResult::status).containsOnly(ToolStatus.SUCCESS);
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.END_TURN);
        assertThat(r.reply()).contains("Nice to meet you, Sam.");
        assertThat(fx.store.blocks().get(talking.scope(), "human").orElseThrow().value()).isEqualTo("Name: Sam Lee\nLikes jazz");
    }

    @Test
    void customToolsAreDeclaredAndSayHowToImplementThemUntilTheRuntimeHasOne() throws Exception {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "check_order_status", "arguments": {"order_number": 42}}]},
                  {"text": "Sorry, I cannot check that now."}
                ]}""");
        open(b -> b.model("script:cs", model));
        AgentFileImport imported = importFile("customer_service.af", "ana", Optional.of("script:cs"));
        Agent agent = imported.agents().getFirst();
        assertThat(agent.definition().declaredTools()).extracting(DeclaredTool::name)
                .containsExactlyInAnyOrder("cancel_order", "check_order_status", "escalate", "terminate_chat");
        AgentResponse r = agent.send("Where is order 42?");
        assertThat(r.toolResults().getFirst().content()).contains("came with this agent from its agent file (custom, python source)",
                "AgentRuntime.Builder.tool", "local Python runner");
        assertThat(r.toolResults().getFirst().status()).isEqualTo(ToolStatus.TOOL_ERROR);

        // A runtime with an implementation of that name uses it.
        fx.close();
        record Order(int order_number) {
        }
        ScriptedChatModel again = script("""
                {"turns": [{"tool_calls": [{"name": "check_order_status", "arguments": {"order_number": 42}}]}, {"text": "Shipped."}]}""");
        open(b -> b.model("script:cs", again).approvalHandler(q -> CompletableFuture.completedFuture(ApprovalDecision.approve()))
                .tool(AiTool.of("check_order_status", "Order status.", Order.class, SafetyTier.READ_ONLY,
                        (in, ctx) -> "Order " + in.order_number() + " has shipped.")));
        AgentResponse shipped = fx.runtime.agent("ana", agent.id()).send("And now?");
        assertThat(shipped.toolResults().getFirst().content()).isEqualTo("Order 42 has shipped.");
    }

    @Test
    void withThePythonRunnerEnabledAnImportedPythonToolRunsItsOwnSourceAfterApproval() throws Exception {
        PythonTools runner;
        try {
            runner = PythonTools.of(Duration.ofSeconds(20));
        } catch (IllegalStateException e) {
            assumeTrue(false, e.getMessage());
            return;
        }
        List<String> asked = new java.util.ArrayList<>();
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "retrieve_candidate", "arguments": {"candidate_name": "Sam"}}]},
                  {"tool_calls": [{"name": "evaluate_candidate", "arguments": {}}]},
                  {"tool_calls": [{"name": "reject", "arguments": {"candidate_name": "Sam"}}]},
                  {"tool_calls": [{"name": "send_email", "arguments": {"candidate_name": "Sam", "email_subject": "Hi", "email_content": "Welcome"}}]}
                ]}""");
        open(b -> b.model("script:outreach", model).pythonTools(runner).approvalHandler(q -> {
            asked.add(q.toolName());
            return CompletableFuture.completedFuture(ApprovalDecision.approve());
        }));
        Agent agent = importFile("outreach_workflow_agent.af", "ana", Optional.of("script:outreach")).agents().getFirst();
        AgentResponse r = agent.send("Evaluate Sam.");
        assertThat(r.toolResults().getFirst().content()).isEqualTo(
                "The candidate Sam is a software engineer working at Letta and based in SF");
        assertThat(r.toolResults().get(1).status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.toolResults().get(1).content()).isIn("true", "false");
        assertThat(asked).startsWith("retrieve_candidate", "evaluate_candidate");
        // evaluate_candidate's random answer chose the next tool; the other one was refused.
        boolean accepted = r.toolResults().get(1).content().equals("true");
        assertThat(r.toolResults().get(2).isError()).isEqualTo(accepted);
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.TERMINAL_TOOL);
    }

    @Test
    void blocksOfOneFileAreSharedBetweenItsAgentsAndEditsShowInTheOthersPrompt() throws Exception {
        String file = """
                {"agents": [
                  {"name": "Planner", "id": "agent-0", "system": "You plan.", "block_ids": ["block-0"], "tool_ids": ["tool-0"],
                   "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai", "model_endpoint": "https://api.openai.com/v1", "context_window": 8000},
                   "tags": ["team"], "messages": [], "in_context_message_ids": []},
                  {"name": "Doer", "id": "agent-1", "system": "You do.", "block_ids": ["block-0", "block-1"], "tool_ids": ["tool-0"],
                   "llm_config": {"model": "claude-x", "model_endpoint_type": "anthropic", "context_window": 8000}}],
                 "blocks": [{"id": "block-0", "label": "project", "value": "Launch on Monday", "limit": 100},
                            {"id": "block-1", "label": "rules", "value": "Be careful", "read_only": true}],
                 "tools": [{"id": "tool-0", "name": "core_memory_append", "tool_type": "letta_core"}],
                 "groups": [], "files": [], "sources": [], "mcp_servers": []}""";
        open(b -> { });
        AgentFileImport imported = fx.runtime.importLettaAgentFile(AgentImport.json(file, "team.af").user("ana"));
        Agent planner = imported.agents().get(0);
        Agent doer = imported.agents().get(1);
        assertThat(planner.id()).isEqualTo("planner");
        assertThat(doer.definition().model()).isEqualTo("anthropic:claude-x");
        assertThat(planner.definition().tags()).containsExactly("team");
        Block shared = fx.store.blocks().get(doer.scope(), "project").orElseThrow();
        assertThat(shared.ownerAgentId()).isEqualTo("planner");
        assertThat(fx.store.blocks().get(doer.scope(), "rules").orElseThrow().permission()).isEqualTo(MemoryPermission.READ_ONLY);
        fx.store.blocks().appendLine(planner.scope(), "project", "Venue: Lisbon");
        assertThat(doer.compilePrompt().systemText()).contains("Launch on Monday\nVenue: Lisbon", "shared_by=\"planner\"");
        // Exported together, the shared block is written once and both agents name it.
        var json = Heartbeats.JSON.readTree(fx.runtime.exportLettaAgentFile("ana", List.of("planner", "doer")));
        assertThat(json.path("blocks")).hasSize(2);
        assertThat(json.at("/agents/1/block_ids").toString()).contains("block-0");
    }

    @Test
    void anAgentsTypeIsImportedAndExportedAndAFileWithoutOneGivesLettasDefault() {
        String file = """
                {"agents": [{"name": "Old", "agent_type": "memgpt_agent", "system": "s", "llm_config": {"model": "m", "model_endpoint_type": "openai"}},
                            {"name": "Untyped", "system": "s", "llm_config": {"model": "m", "model_endpoint_type": "openai"}}],
                 "blocks": [], "tools": []}""";
        open(b -> { });
        AgentFileImport imported = fx.runtime.importLettaAgentFile(AgentImport.json(file, "types.af").user("ana"));
        assertThat(imported.agents()).extracting(a -> a.definition().agentType())
                .containsExactly(AgentType.MEMGPT_AGENT, AgentType.LETTA_V1_AGENT);
        var json = Heartbeats.JSON.readTree(fx.runtime.exportLettaAgentFile("ana", List.of("old", "untyped")));
        assertThat(json.at("/agents/0/agent_type").asString()).isEqualTo("memgpt_agent");
        assertThat(json.at("/agents/1/agent_type").asString()).isEqualTo("letta_v1_agent");
    }

    @Test
    void anExportedFileGivesEachToolTheTypeLettaGivesIt() {
        open(b -> { });
        fx.runtime.create(AgentDefinition.builder("ana").id("typed").model("openai:gpt-4o-mini")
                .tools("send_message", "core_memory_append", "memory_insert", "block").build());
        var json = Heartbeats.JSON.readTree(fx.runtime.exportLettaAgentFile("ana", List.of("typed")));
        Map<String, String> types = new java.util.TreeMap<>();
        json.path("tools").forEach(t -> types.put(t.path("name").asString(), t.path("tool_type").asString()));
        assertThat(types).containsExactlyInAnyOrderEntriesOf(Map.of("send_message", "letta_core",
                "core_memory_append", "letta_memory_core", "memory_insert", "letta_sleeptime_core", "block", "letta_builtin"));
        assertThat(types).allSatisfy((name, type) -> assertThat(type).isEqualTo(LettaTools.toolType(name)));
    }

    @Test
    void aFilesHugeContextWindowIsImportedAsTheModelsLargest() {
        String file = """
                {"agents": [{"name": "Wide", "system": "s", "block_ids": [],
                  "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai", "context_window": 2147483647}}],
                 "blocks": [], "tools": []}""";
        open(b -> { });
        Agent wide = fx.runtime.importLettaAgentFile(AgentImport.json(file, "wide.af").user("ana")).agents().getFirst();
        assertThat(wide.definition().contextWindowTokens()).isEqualTo(ContextWindows.max("openai:gpt-4o-mini"));
    }

    @Test
    void aValueLongerThanItsLimitIsImportedWithTheLimitRaisedAndAWarning() {
        String file = """
                {"agents": [{"name": "Small", "system": "s", "block_ids": ["b"], "llm_config": {"model": "m", "model_endpoint_type": "openai"}}],
                 "blocks": [{"id": "b", "label": "notes", "value": "0123456789", "limit": 4}], "tools": []}""";
        open(b -> { });
        AgentFileImport imported = fx.runtime.importLettaAgentFile(AgentImport.json(file, "small.af").user("ana"));
        assertThat(imported.warnings()).singleElement().asString().contains("block 'notes' holds 10 characters, more than its limit of 4");
        assertThat(fx.store.blocks().get(imported.agents().getFirst().scope(), "notes").orElseThrow().limit()).isEqualTo(10);
    }

    @Test
    void aMalformedFileChangesNothingAndNamesTheField() {
        open(b -> { });
        Map<String, String> cases = Map.of(
                "{\"agents\": [{\"name\": \"A\", \"system\": \"s\", \"block_ids\": [\"b\"], \"llm_config\": {\"model\": \"m\", "
                        + "\"model_endpoint_type\": \"openai\"}}], \"blocks\": [{\"id\": \"b\", \"value\": \"v\"}]}",
                "blocks[id=b].label is missing or empty",
                "{\"agents\": [{\"name\": \"A\", \"tool_ids\": [\"t9\"], \"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\"}}], \"tools\": []}",
                "agents[0].tool_ids names tool 't9'",
                "{\"agents\": [{\"name\": \"A\", \"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\"}, "
                        + "\"tool_rules\": [{\"tool_name\": \"x\", \"type\": \"sometimes\"}]}]}",
                "agents[0].tool_rules tool rule 1 is invalid",
                "{\"agents\": [{\"name\": \"A\", \"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\"}, "
                        + "\"messages\": [{\"role\": \"narrator\", \"content\": \"x\", \"id\": \"m1\"}]}]}",
                "agents[0].messages[0].role is 'narrator'",
                "{\"agents\": [{\"name\": \"A\", \"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\", "
                        + "\"model_endpoint\": \"http://10.0.0.5:8000/v1\"}}]}",
                "agents[0].llm_config sends requests to its own endpoint (http://10.0.0.5:8000/v1)",
                "{\"agents\": [{\"name\": \"A\", \"llm_config\": {\"model\": \"\", \"model_endpoint_type\": \"bedrock\"}}]}",
                "has model endpoint type 'bedrock'",
                "{\"agents\": [{\"name\": \"Ok\", \"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\"}}, "
                        + "{\"name\": \"Bad\", \"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\"}, \"messages\": "
                        + "[{\"role\": \"tool\", \"content\": \"x\"}]}]}",
                "agents[1].messages[0].tool_call_id is missing or empty",
                "{\"no\": \"agents\"}", "has no \"agents\" array",
                "{\"agents\": [{\"name\": \"A\", \"agent_type\": \"voice_convo_agent\", \"llm_config\": {\"model\": \"m\", "
                        + "\"model_endpoint_type\": \"openai\"}}]}",
                "agents[0].agent_type cannot be run: agent type 'voice_convo_agent' is a Letta agent type Engram does not run; "
                        + "Engram runs letta_v1_agent, memgpt_v2_agent",
                "not json", "is not valid JSON");
        cases.forEach((json, message) -> {
            assertThatThrownBy(() -> fx.runtime.importLettaAgentFile(AgentImport.json(json, "bad.af").user("ana")))
                    .as(message).isInstanceOf(AgentException.class).hasMessageContaining(message)
                    .hasMessageContaining("Nothing was stored");
            assertThat(fx.runtime.list("ana")).as("agents after %s", message).isEmpty();
            assertThat(fx.store.blocks().list(Scope.of("ana", "a"))).isEmpty();
        });
    }

    @Test
    void theSameFileImportedTwiceGivesASecondAgentOfTheSameName() throws Exception {
        open(b -> { });
        Agent first = importFile("memgpt_agent.af", "ana", Optional.of("script:x")).agents().getFirst();
        Agent second = importFile("memgpt_agent.af", "ana", Optional.of("script:x")).agents().getFirst();
        assertThat(second.id()).isNotEqualTo(first.id()).isEqualTo(first.id() + "-2");
        assertThat(second.name()).isEqualTo(first.name());
        assertThat(fx.runtime.list("ana")).hasSize(2);
        assertThatThrownBy(() -> fx.runtime.findByName("ana", first.name())).isInstanceOf(AgentException.class)
                .hasMessage("User 'ana' has 2 agents named '" + first.name() + "' (ids " + first.id() + ", " + second.id()
                        + "); name one by its id.");
    }
}

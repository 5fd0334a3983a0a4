package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.memory.AgentFile;
import dev.engram.memory.Folder;
import dev.engram.memory.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A Letta agent file's sources, files and {@code files_agents}: imported as the user's folders and files, attached to
 * the agents with each file open or closed and its window, shown in the prompt as Letta's file blocks, and written back
 * on export.
 */
class LettaFoldersTest {
    private static final String FILE = """
            {"agents": [{"name": "Reader", "id": "agent-0", "system": "You read manuals.",
              "llm_config": {"model": "m", "model_endpoint_type": "openai"}, "source_ids": ["source-0"],
              "tool_ids": ["tool-0"],
              "files_agents": [
                {"id": "file_agent-0", "agent_id": "agent-0", "file_id": "file-0", "source_id": "source-0",
                 "file_name": "manuals/boiler.md", "is_open": true, "start_line": 2, "end_line": 3},
                {"id": "file_agent-1", "agent_id": "agent-0", "file_id": "file-1", "source_id": "source-0",
                 "file_name": "manuals/notes.md", "is_open": false}]}],
             "tools": [{"id": "tool-0", "name": "open_files", "tool_type": "letta_files_core"}],
             "blocks": [],
             "sources": [{"id": "source-0", "name": "manuals", "description": "Boiler manuals", "instructions": "Cite the line."}],
             "files": [
               {"id": "file-0", "source_id": "source-0", "file_name": "boiler.md", "file_type": "text/markdown",
                "content": "# Boiler\\nThe pressure relief valve opens at three bar.\\nCall the installer if it rises.\\nEnd."},
               {"id": "file-1", "source_id": "source-0", "file_name": "notes.md", "content": "Service every spring."}]}""";

    @TempDir
    Path dir;
    AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void sourcesFilesAndFileStatesComeAlongIntoThePromptAndGoBackOutOnExport() {
        fx = new AgentFixture(dir).open(b -> { });
        AgentFileImport imported = fx.runtime.importLettaAgentFile(AgentImport.json(FILE, "reader.af").user("ana"));
        Agent agent = imported.agents().getFirst();
        assertThat(imported.dropped()).isEmpty();
        Scope scope = agent.scope();
        assertThat(fx.store.folders().agents().attached(scope)).extracting(Folder::name).containsExactly("manuals");
        List<AgentFile> files = fx.store.folders().agents().files(scope);
        assertThat(files).extracting(AgentFile::name).containsExactly("manuals/boiler.md", "manuals/notes.md");
        assertThat(files).extracting(AgentFile::open).containsExactly(true, false);
        assertThat(files.get(0).visibleContent(1_000)).isEqualTo("[Viewing lines 2 to 3 (out of 4 lines)]\n"
                + "2: The pressure relief valve opens at three bar.\n3: Call the installer if it rises.");
        assertThat(fx.store.folders().countPassages("ana", files.get(0).folder().id())).isEqualTo(2);
        assertThat(agent.definition().tools()).contains("open_files", "grep_files", "semantic_search_files");

        String prompt = agent.compilePrompt().systemText();
        assertThat(prompt).contains("<directories>", "- current_files_open=1", "<directory name=\"manuals\">",
                "<description>Boiler manuals</description>", "<instructions>Cite the line.</instructions>",
                "<file status=\"open\" name=\"manuals/boiler.md\">", "- read_only=true",
                "2: The pressure relief valve opens at three bar.", "<file status=\"closed\" name=\"manuals/notes.md\">")
                .doesNotContain("Service every spring.");

        JsonNode exported = Heartbeats.JSON.readTree(fx.runtime.exportLettaAgentFile("ana", List.of(agent.id())));
        assertThat(exported.path("sources").path(0).path("name").asString()).isEqualTo("manuals");
        assertThat(exported.path("files")).hasSize(2);
        assertThat(exported.path("files").path(0).path("content").asString()).contains("three bar");
        JsonNode a = exported.path("agents").path(0);
        assertThat(a.path("source_ids").path(0).asString()).isEqualTo("source-0");
        assertThat(a.path("files_agents").path(0).path("is_open").asBoolean()).isTrue();
        assertThat(a.path("files_agents").path(0).path("start_line").asInt()).isEqualTo(2);
        assertThat(a.path("files_agents").path(0).path("end_line").asInt()).isEqualTo(3);
        assertThat(a.path("files_agents").path(1).path("is_open").asBoolean()).isFalse();

        // the export imports again, as a second set of folders of the same user
        Agent again = fx.runtime.importLettaAgentFile(AgentImport.json(exported.toString(), "again.af").user("ana"))
                .agents().getFirst();
        assertThat(fx.store.folders().agents().attached(again.scope())).extracting(Folder::name).containsExactly("manuals-2");
        assertThat(fx.store.folders().agents().files(again.scope()).get(0).visibleContent(1_000))
                .isEqualTo(files.get(0).visibleContent(1_000));
    }

    @Test
    void anExportWithFoldersIsValidAgainstLettasPublishedAgentFileSchema() throws Exception {
        Path contract = Path.of(System.getProperty("engram.shared.data", "../../shared/data")).resolveSibling("letta")
                .resolve("openapi.json");
        assumeTrue(Files.isRegularFile(contract), "../shared/letta/openapi.json is absent; skipping");
        var schemaNode = Heartbeats.JSON.createObjectNode().put("$schema", "https://json-schema.org/draft/2020-12/schema")
                .put("$ref", "#/components/schemas/AgentFileSchema");
        schemaNode.set("components", Heartbeats.JSON.readTree(Files.readString(contract)).path("components"));
        var schema = com.networknt.schema.SchemaRegistry.withDefaultDialect(com.networknt.schema.SpecificationVersion.DRAFT_2020_12)
                .getSchema(schemaNode);
        fx = new AgentFixture(dir).open(b -> { });
        Agent agent = fx.runtime.importLettaAgentFile(AgentImport.json(FILE, "reader.af").user("ana")).agents().getFirst();
        JsonNode exported = Heartbeats.JSON.readTree(fx.runtime.exportLettaAgentFile("ana", List.of(agent.id())));
        assertThat(exported.path("files")).hasSize(2);
        assertThat(schema.validate(exported)).isEmpty();
    }

    @Test
    void evieKeepsItsFilesWhenTheSharedAgentFileIsThere() throws Exception {
        Path evie = Path.of(System.getProperty("engram.shared.data", "../../shared/data"), "agent-files", "evie.af");
        assumeTrue(Files.exists(evie), "evie.af (Letta's published agent file with folders) is not in ../shared/data/"
                + "agent-files; sourcesFilesAndFileStatesComeAlong... covers the same parts with a file of its own");
        JsonNode root = Heartbeats.JSON.readTree(Files.readString(evie));
        fx = new AgentFixture(dir).open(b -> { });
        AgentFileImport imported = fx.runtime.importLettaAgentFile(AgentImport.json(Files.readString(evie), "evie.af")
                .user("ana"));
        assertThat(fx.store.folders().list("ana")).hasSize(root.path("sources").size());
        long files = fx.store.folders().list("ana").stream().mapToLong(f -> fx.store.folders().files("ana", f.id()).size()).sum();
        assertThat(files).isEqualTo(root.path("files").size());
        assertThat(imported.agents()).anySatisfy(a -> assertThat(fx.store.folders().agents().attached(a.scope())).isNotEmpty());
    }
}

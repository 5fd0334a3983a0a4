package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.engram.framework.ToolResult;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.AgentFile;
import dev.engram.memory.FileLimits;
import dev.engram.memory.FileStatus;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.Metadata;
import dev.engram.tools.FolderUploads;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An agent's own file limits ({@code max_files_open}, {@code per_file_view_window_char_limit}), as Letta has them: kept
 * with the agent and its agent files, honoured by {@code open_files} (the least recently opened file closes, and the
 * answer names it) and by the prompt's window; and a file uploaded to an attached folder opening in the next step.
 */
class AgentFileLimitsTest {
    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent agent(ScriptedChatModel model, int maxFilesOpen, int windowChars) {
        fx = new AgentFixture(dir).open("script:test", model);
        return fx.runtime.create(AgentDefinition.builder("ana").id("reader").model("script:test")
                .agentType(AgentType.LETTA_V1_AGENT).maxFilesOpen(maxFilesOpen).perFileViewWindowCharLimit(windowChars)
                .maxSteps(4).build());
    }

    private Folder folder(String... namesAndTexts) {
        Folder docs = fx.store.folders().create("ana", "docs", "", "", Metadata.empty());
        for (int i = 0; i < namesAndTexts.length; i += 2) {
            FolderFile f = fx.store.folders().addFile("ana", docs.id(), "docs/" + namesAndTexts[i], namesAndTexts[i],
                    "text/plain", namesAndTexts[i + 1].length());
            fx.store.folders().text("ana", f.id(), namesAndTexts[i + 1], 0);
            fx.store.folders().status("ana", f.id(), FileStatus.COMPLETED);
        }
        return docs;
    }

    private static String system(ChatRequest request) {
        return ((ChatMessage.System) request.messages().getFirst()).text();
    }

    @Test
    void openingPastTheAgentsLimitClosesTheLeastRecentlyOpenedFileAndTheAnswerNamesIt() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"expect_in_prompt": ["- max_files_open=2", "<file status=\\"closed\\" name=\\"docs/a.txt\\">",
                     "<file status=\\"open\\" name=\\"docs/c.txt\\">"],
                   "tool_calls": [{"name": "open_files", "arguments": {"file_requests": [{"file_name": "docs/a.txt"}]}}]},
                  {"expect_in_prompt": ["<file status=\\"closed\\" name=\\"docs/b.txt\\">", "1: alpha", "1: gamma"],
                   "text": "Read."}
                ]}""");
        Agent agent = agent(model, 2, 1_000);
        Folder docs = folder("a.txt", "alpha", "b.txt", "beta", "c.txt", "gamma");
        fx.runtime.attachFolder("ana", agent.id(), docs.id()); // b and c open: the newest two

        AgentResponse r = agent.send("Open a.");

        assertThat(r.reply()).as(r.toString()).contains("Read.");
        assertThat(r.toolResults()).extracting(ToolResult::content).singleElement().asString()
                .contains("* Opened docs/a.txt")
                .contains("Note: Closed 1 least recently used file(s) due to open file limit: docs/b.txt");
        assertThat(fx.store.folders().agents().files(agent.scope())).extracting(AgentFile::name, AgentFile::open)
                .containsExactly(tuple("docs/a.txt", true),
                        tuple("docs/b.txt", false),
                        tuple("docs/c.txt", true));
    }

    @Test
    void thePromptShowsAtMostTheAgentsWindowOfAnOpenFile() {
        ScriptedChatModel model = script("""
                {"turns": [{"expect_in_prompt": ["- chars_limit=120", "...[TRUNCATED]"], "text": "Seen."}]}""");
        Agent agent = agent(model, 5, 120);
        String text = String.join("\n", Collections.nCopies(50, "line of the manual"));
        fx.runtime.attachFolder("ana", agent.id(), folder("manual.txt", text).id());

        agent.send("What does it say?");

        String prompt = system(model.requests().getFirst());
        String file = prompt.substring(prompt.indexOf("<file status=\"open\" name=\"docs/manual.txt\">"));
        String value = file.substring(file.indexOf("<value>\n") + "<value>\n".length(), file.indexOf("\n</value>"));
        assertThat(value).hasSize(120).startsWith("1: line of the manual\n2: ").endsWith(AgentFile.TRUNCATED);
        assertThat(prompt).contains("- chars_current=120").doesNotContain("50: line of the manual");
    }

    @Test
    void aFileUploadedAfterTheFolderWasAttachedIsOpenInTheNextStepAndADeletedOneLeavesIt() throws Exception {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"expect_in_prompt": ["<file status=\\"open\\" name=\\"docs/late.md\\">", "1: # Late news",
                     "2: The boiler was serviced in May.", "<file status=\\"closed\\" name=\\"docs/a.txt\\">"],
                   "text": "Seen it."},
                  {"text": "Gone."}
                ]}""");
        Agent agent = agent(model, 1, 1_000);
        Folder docs = folder("a.txt", "alpha");
        fx.runtime.attachFolder("ana", agent.id(), docs.id()); // a opens
        FolderFile late;
        try (FolderUploads uploads = FolderUploads.create(fx.store, fx.search, 300, fx.runtime::fileLimits)) {
            late = uploads.upload("ana", docs.id(), "late.md",
                    "# Late news\nThe boiler was serviced in May.\n".getBytes(StandardCharsets.UTF_8),
                    FolderUploads.Duplicates.ERROR).done().get(60, TimeUnit.SECONDS);
        }
        assertThat(late.status()).isEqualTo(FileStatus.COMPLETED);

        assertThat(agent.send("Anything new?").reply()).contains("Seen it.");

        fx.store.folders().deleteFile("ana", late.id());
        assertThat(agent.send("And now?").reply()).contains("Gone.");
        assertThat(system(model.requests().get(1))).doesNotContain("late.md", "Late news")
                .contains("<file status=\"closed\" name=\"docs/a.txt\">");
    }

    @Test
    void theLimitsAreKeptWithTheAgentAndByBothAgentFilesAndUnsetOnesFollowTheContextWindow() {
        fx = new AgentFixture(dir).open(b -> { });
        AgentDefinition set = AgentDefinition.builder("ana").id("set").model("openai:gpt-4o-mini").maxFilesOpen(2)
                .perFileViewWindowCharLimit(700).build();
        AgentDefinition unset = AgentDefinition.builder("ana").id("unset").model("openai:gpt-4o-mini").contextWindowTokens(8_000).build();
        fx.runtime.create(set);
        fx.runtime.create(unset);
        assertThat(set.fileLimits()).isEqualTo(new FileLimits(2, 700));
        assertThat(unset.maxFilesOpen()).isEmpty();
        assertThat(unset.fileLimits()).isEqualTo(new FileLimits(3, 5_000));

        fx.close();
        fx.open(b -> { });
        assertThat(fx.runtime.agent("ana", "set").definition().fileLimits()).isEqualTo(new FileLimits(2, 700));
        assertThat(fx.runtime.agent("ana", "unset").definition().maxFilesOpen()).isEmpty();

        String engram = fx.runtime.exportAgent("ana", "set");
        Agent copy = fx.runtime.importAgent(AgentImport.json(engram, "set.json").user("ben"));
        assertThat(copy.definition().maxFilesOpen()).contains(2);
        assertThat(copy.definition().perFileViewWindowCharLimit()).contains(700);

        JsonNode letta = Heartbeats.JSON.readTree(fx.runtime.exportLettaAgentFile("ana", List.of("set")));
        assertThat(letta.path("agents").path(0).path("max_files_open").asInt()).isEqualTo(2);
        assertThat(letta.path("agents").path(0).path("per_file_view_window_char_limit").asInt()).isEqualTo(700);
        Agent lettaCopy = fx.runtime.importLettaAgentFile(AgentImport.json(letta.toString(), "set.af").user("cy")).agents()
                .getFirst();
        assertThat(lettaCopy.definition().fileLimits()).isEqualTo(new FileLimits(2, 700));
    }

    @Test
    void badLimitsAreRefusedWithTheFieldsNameAndAnAgentFileWithThemStoresNothing() {
        AgentDefinition.Builder b = AgentDefinition.builder("ana").id("bad").model("openai:gpt-4o-mini");
        assertThatThrownBy(() -> b.maxFilesOpen(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max_files_open must be between 1 and 1000");
        assertThatThrownBy(() -> b.maxFilesOpen(-3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.perFileViewWindowCharLimit(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("per_file_view_window_char_limit");
        assertThatThrownBy(() -> b.perFileViewWindowCharLimit(FileLimits.MAX_VIEW_WINDOW_CHARS + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(b.build().maxFilesOpen()).as("the builder kept nothing of the refused values").isEmpty();

        fx = new AgentFixture(dir).open(x -> { });
        fx.runtime.create(AgentDefinition.builder("ana").id("good").model("openai:gpt-4o-mini").maxFilesOpen(3).build());
        ObjectNode letta = (ObjectNode) Heartbeats.JSON.readTree(fx.runtime.exportLettaAgentFile("ana", List.of("good")));
        ((ObjectNode) letta.path("agents").path(0)).put("max_files_open", 0).put("name", "other");
        assertThatThrownBy(() -> fx.runtime.importLettaAgentFile(AgentImport.json(letta.toString(), "bad.af").user("ben")))
                .isInstanceOf(AgentException.class).hasMessageContaining("max_files_open must be between 1 and 1000");
        assertThat(fx.runtime.list("ben")).isEmpty();
    }
}

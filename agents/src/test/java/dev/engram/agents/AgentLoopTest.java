package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Archive;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The step loop, driven by scripted models that emit real tool calls, checked against what was persisted. */
class AgentLoopTest {
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

    private Agent agent(ScriptedChatModel model, int maxSteps) {
        fx = new AgentFixture(dir).open("script:test", model);
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").name("Helper").model("script:test")
                .block("human", "What I know about the user", "").maxSteps(maxSteps).build());
    }

    private List<MessageRole> roles() {
        return fx.messages(ANA).stream().map(ConversationMessage::role).toList();
    }

    record Probe() {
    }

    @Test
    void aToolCallIsRecordedBeforeTheToolRuns() {
        java.util.concurrent.atomic.AtomicReference<AgentFixture> fixture = new java.util.concurrent.atomic.AtomicReference<>();
        dev.engram.framework.AiTool<Probe, String> probe = dev.engram.framework.AiTool.of("probe",
                "Says whether its own call is already in recall memory.", Probe.class, dev.engram.framework.SafetyTier.READ_ONLY,
                (in, ctx) -> fixture.get().messages(ANA).stream().anyMatch(m -> m.toolCalls().stream()
                        .anyMatch(c -> c.name().equals("probe"))) ? "recorded" : "missing");
        fx = new AgentFixture(dir).open(b -> b.tool(probe).model("script:test", script("""
                {"turns": [
                  {"tool_calls": [{"name": "probe", "arguments": {"request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "done"}}]}
                ]}""")));
        fixture.set(fx);
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test").addTools("probe").build());

        AgentResponse r = agent.send("probe it");

        assertThat(r.toolResults().getFirst().content()).isEqualTo("recorded");
        assertThat(roles()).containsExactly(MessageRole.USER, MessageRole.ASSISTANT, MessageRole.TOOL, MessageRole.ASSISTANT,
                MessageRole.TOOL);
    }

    @Test
    void aCallLeftWithoutAResultByACrashGetsAnInterruptedResultBeforeTheNextMessage() {
        Agent agent = agent(script("""
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "Back again."}}],
                            "expect_in_prompt": ["The call was interrupted before it finished"]}]}"""), 5);
        // What a crash between recording a call and recording its result leaves behind.
        fx.store.messages().append(ANA, dev.engram.memory.NewMessage.user("default", "Note that I like tea."));
        fx.store.messages().append(ANA, dev.engram.memory.NewMessage.assistant("default", "", List.of(
                new dev.engram.memory.MessageToolCall("call_lost", "block",
                        "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"Likes tea\"}"))));

        AgentResponse r = agent.send("Are you there?");

        assertThat(r.reply()).contains("Back again.");
        List<ConversationMessage> history = fx.messages(ANA);
        assertThat(history.get(2).role()).isEqualTo(MessageRole.TOOL);
        assertThat(history.get(2).toolCallId()).contains("call_lost");
        assertThat(history.get(2).content()).isEqualTo(Prompts.ERROR_PREFIX + ToolStep.INTERRUPTED);
        assertThat(history.get(3).content()).isEqualTo("Are you there?");
    }

    @Test
    void heartbeatChainContinuesUntilSendMessageYields() {
        Agent agent = agent(script("""
                {"turns": [
                  {"text": "Let me look.", "tool_calls": [{"name": "search", "arguments": {"query": "tea", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "memory_save", "arguments": {"content": "Ana likes green tea", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Noted: you like green tea."}}]}
                ]}"""), 10);

        AgentResponse r = agent.send("I like green tea.");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
        assertThat(r.reply()).contains("Noted: you like green tea.");
        assertThat(r.steps()).isEqualTo(3);
        assertThat(r.toolResults()).extracting(t -> t.status()).containsOnly(ToolStatus.SUCCESS);
        // Persisted: the user message, then each assistant call with its result.
        assertThat(roles()).containsExactly(MessageRole.USER, MessageRole.ASSISTANT, MessageRole.TOOL,
                MessageRole.ASSISTANT, MessageRole.TOOL, MessageRole.ASSISTANT, MessageRole.TOOL);
        ConversationMessage firstCall = fx.messages(ANA).get(1);
        assertThat(firstCall.content()).isEqualTo("Let me look.");
        assertThat(firstCall.toolCalls().getFirst().arguments()).contains("request_heartbeat");
        assertThat(fx.store.notes().list("ana", 0, 10)).extracting(n -> n.content()).containsExactly("Ana likes green tea");
        // The pipeline never saw the heartbeat flag.
        assertThat(fx.events(AgentEvent.ToolCallStarted.class)).allSatisfy(
                e -> assertThat(e.call().arguments()).doesNotContain("request_heartbeat"));
    }

    @Test
    void everyStoredMessageIsAnnouncedAsStoredInOrder() {
        Agent agent = agent(script("""
                {"turns": [
                  {"text": "Let me note that.", "tool_calls": [{"name": "memory_save", "arguments": {"content": "Ana likes tea", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Noted."}}]}
                ]}"""), 10);

        agent.send("I like tea.");

        List<ConversationMessage> announced = fx.events(AgentEvent.MessagesStored.class).stream()
                .peek(e -> assertThat(e.scope()).isEqualTo(ANA)).flatMap(e -> e.messages().stream()).toList();
        assertThat(announced).isEqualTo(fx.messages(ANA)).hasSize(5);
        assertThat(announced.getFirst().content()).isEqualTo("I like tea.");
    }

    @Test
    void everyToolSchemaOffersRequestHeartbeat() {
        Agent agent = agent(script("{\"turns\": []}"), 10);
        assertThat(agent.compilePrompt().tools()).isNotEmpty().allSatisfy(t ->
                assertThat(t.parameters().path("properties").path("request_heartbeat").path("type").asString())
                        .isEqualTo("boolean"));
    }

    @Test
    void aCallWithoutHeartbeatEndsTheTurn() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "search", "arguments": {"query": "tea"}}]},
                  {"text": "never played"}
                ]}""");
        AgentResponse r = agent(model, 10).send("Anything about tea?");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.NO_HEARTBEAT);
        assertThat(r.reply()).isEmpty();
        assertThat(model.remaining()).isEqualTo(1);
    }

    @Test
    void sendMessageYieldsAtOnceAndTheReplyIsReturned() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"text": "thinking", "tool_calls": [{"name": "send_message", "arguments": {"message": "Hello Ana!", "request_heartbeat": true}}]},
                  {"text": "never played"}
                ]}""");
        AgentResponse r = agent(model, 10).send("Hi");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
        assertThat(r.reply()).contains("Hello Ana!");
        assertThat(r.steps()).isEqualTo(1);
        assertThat(model.remaining()).isEqualTo(1);
        assertThat(fx.events(AgentEvent.MessageSent.class)).extracting(AgentEvent.MessageSent::text).containsExactly("Hello Ana!");
    }

    @Test
    void aMemoryEditKeepsTheAgentGoing() {
        Agent agent = agent(script("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Name: Ana"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Nice to meet you, Ana."}}],
                   "expect_in_prompt": ["Name: Ana"]}
                ]}"""), 10);
        AgentResponse r = agent.send("I'm Ana.");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
        assertThat(fx.store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Name: Ana");
    }

    @Test
    void textWithoutToolCallsEndsTheTurnAndIsTheReply() {
        AgentResponse r = agent(script("{\"turns\": [{\"text\": \"Plain answer.\"}]}"), 10).send("Hi");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.END_TURN);
        assertThat(r.reply()).contains("Plain answer.");
        assertThat(roles()).containsExactly(MessageRole.USER, MessageRole.ASSISTANT);
    }

    @Test
    void loopBreakerStopsTheThirdIdenticalCallAndTellsTheModelWhy() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "search", "arguments": {"query": "tea", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "search", "arguments": {"request_heartbeat": true, "query": "tea"}}]},
                  {"tool_calls": [{"name": "search", "arguments": {"query": "tea", "request_heartbeat": true}}]},
                  {"text": "never played"}
                ]}""");
        AgentResponse r = agent(model, 10).send("tea?");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.LOOP_BREAKER);
        assertThat(r.steps()).isEqualTo(3);
        assertThat(fx.events(AgentEvent.ToolCallStarted.class)).hasSize(2); // the third never ran
        ConversationMessage last = fx.messages(ANA).getLast();
        assertThat(last.role()).isEqualTo(MessageRole.TOOL);
        assertThat(last.content()).startsWith("Error: Loop breaker: you called 'search' with the same arguments 3 times");
        assertThat(model.remaining()).isEqualTo(1);
    }

    @Test
    void stepCapStopsARunawayChain() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "search", "arguments": {"query": "one", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "search", "arguments": {"query": "two", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "search", "arguments": {"query": "three", "request_heartbeat": true}}]}
                ]}""");
        AgentResponse r = agent(model, 2).send("go");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.STEP_CAP);
        assertThat(r.steps()).isEqualTo(2);
        assertThat(model.remaining()).isEqualTo(1);
        assertThat(roles()).hasSize(5);
    }

    @Test
    void anInvalidCallIsCorrectedByTheModel() {
        Agent agent = agent(script("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human"}}]},
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Likes tea"}}],
                   "expect_in_prompt": ["arguments invalid", "text"]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Saved."}}]}
                ]}"""), 10);

        AgentResponse r = agent.send("Remember I like tea.");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
        assertThat(r.toolResults()).extracting(t -> t.status())
                .containsExactly(ToolStatus.INVALID_ARGUMENTS, ToolStatus.SUCCESS, ToolStatus.SUCCESS);
        assertThat(fx.messages(ANA).get(2).content()).startsWith("Error: Tool 'block' arguments invalid");
        assertThat(fx.store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Likes tea");
    }

    @Test
    void selfCorrectionIsBounded() {
        fx = new AgentFixture(dir).open(b -> b.model("script:test", script("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append"}}]},
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append"}}]},
                  {"text": "never played"}
                ]}""")).maxCorrections(1));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test").build());
        AgentResponse r = agent.send("go");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.TOO_MANY_ERRORS);
        assertThat(r.steps()).isEqualTo(2);
    }

    @Test
    void eventsFollowTheStepInOrder() {
        agent(script("""
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "Hi"}}]}]}"""), 10).send("Hello");
        assertThat(fx.events).extracting(e -> e.getClass().getSimpleName()).containsExactly(
                "MessagesStored", "StepStarted", "ModelCalled", "ToolCallStarted", "MessagesStored", "MessageSent", "MessagesStored",
                "ToolCallFinished", "StepFinished", "StepTaken");
        assertThat(fx.events(AgentEvent.StepFinished.class).getFirst().stopReason()).contains(AgentStopReason.YIELDED);
    }

    @Test
    void everyModelCallIsAnnouncedWithItsModelTimeAndTokens() {
        agent(script("""
                {"turns": [{"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Ana"}}]},
                           {"tool_calls": [{"name": "send_message", "arguments": {"message": "Hi"}}]}]}"""), 10).send("Hello");
        List<AgentEvent.ModelCalled> calls = fx.events(AgentEvent.ModelCalled.class);
        assertThat(calls).hasSize(2).allSatisfy(c -> {
            assertThat(c.scope()).isEqualTo(ANA);
            assertThat(c.model()).isEqualTo("script:test");
            assertThat(c.failed()).isFalse();
            assertThat(c.inputTokens()).isPositive();
            assertThat(c.duration().isNegative()).isFalse();
        });
    }

    @Test
    void aFailedModelCallIsAnnouncedAsFailedWithoutTokens() {
        Agent agent = agent(script("{\"turns\": []}"), 10);
        assertThatThrownBy(() -> agent.send("Hi")).isInstanceOf(AgentException.class);
        assertThat(fx.events(AgentEvent.ModelCalled.class)).singleElement().satisfies(c -> {
            assertThat(c.failed()).isTrue();
            assertThat(c.inputTokens()).isZero();
            assertThat(c.outputTokens()).isZero();
        });
    }

    @Test
    void everyStepIsTakenWithWhatTheModelWasAskedAndAnsweredItsTokensAndTimes() {
        agent(script("""
                {"turns": [{"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Ana"}}]},
                           {"tool_calls": [{"name": "send_message", "arguments": {"message": "Hi"}}]}]}"""), 10).send("Hello");
        List<AgentEvent.StepTaken> steps = fx.events(AgentEvent.StepTaken.class);
        assertThat(steps).extracting(AgentEvent.StepTaken::step).containsExactly(1, 2);
        AgentEvent.StepTaken first = steps.getFirst();
        assertThat(first.session()).isEqualTo("default");
        assertThat(first.model()).isEqualTo("script:test");
        assertThat(first.status()).isEqualTo("success");
        assertThat(first.stopReason()).isEmpty();
        assertThat(first.inputTokens()).isPositive();
        assertThat(first.request()).contains("\"message_ids\":[" + fx.messages(ANA).getFirst().id() + "]")
                .contains("\"tools\":[").contains("\"block\"");
        assertThat(first.response()).contains("\"name\":\"block\"").contains("\"text\":\"\"");
        assertThat(first.completedAt()).isAfterOrEqualTo(first.startedAt());
        assertThat(steps.get(1).stopReason()).contains(AgentStopReason.YIELDED);
        assertThat(steps.get(1).startedAt()).isAfterOrEqualTo(first.completedAt());
    }

    @Test
    void aStepIsTakenInsideTheTransactionOfItsLastWritesSoThatAListenerCanStoreItsRecordWithThem() {
        Agent agent = agent(script("""
                {"turns": [{"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Ana"}}]},
                           {"text": "Noted."}]}"""), 10);
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        fx.runtime.addListener(e -> {
            if (e instanceof AgentEvent.StepTaken t) {
                // in the step's unit: what the listener writes commits (or rolls back) with the step's messages
                seen.add(t.step() + ":" + fx.store.isInTransaction() + ":" + fx.messages(ANA).size());
            }
        });
        agent.send("Hello");
        // step 1 stored the user message, the call and its result; step 2 its answer
        assertThat(seen).containsExactly("1:true:3", "2:true:4");
        assertThat(fx.store.isInTransaction()).isFalse();
    }

    @Test
    void aStepWhoseModelFailedIsTakenAsFailed() {
        Agent agent = agent(script("{\"turns\": []}"), 10);
        assertThatThrownBy(() -> agent.send("Hi")).isInstanceOf(AgentException.class);
        assertThat(fx.events(AgentEvent.StepTaken.class)).singleElement().satisfies(s -> {
            assertThat(s.status()).isEqualTo("failed");
            assertThat(s.response()).isEqualTo("{}");
        });
    }

    @Test
    void blankMessageIsRejectedAndNothingStored() {
        Agent agent = agent(script("{\"turns\": []}"), 10);
        assertThatThrownBy(() -> agent.send("  ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("message");
        assertThat(fx.messages(ANA)).isEmpty();
    }

    @Test
    void aModelFailureIsAnAgentExceptionAndTheUserMessageStaysStored() {
        Agent agent = agent(script("{\"turns\": []}"), 10);
        assertThatThrownBy(() -> agent.send("Hi")).isInstanceOf(AgentException.class)
                .hasMessageContaining("could not reach its model script:test");
        assertThat(roles()).containsExactly(MessageRole.USER);
        assertThat(agent.isBusy()).isFalse();
    }

    @Test
    void thePromptShowsBlocksWithUsageAndPermissionAndTheStatistics() {
        Agent agent = agent(script("{\"turns\": []}"), 10);
        fx.store.blocks().append(ANA, "human", "Name: Ana", dev.engram.memory.BlockStore.ANY_VERSION);
        String system = agent.compilePrompt().systemText();
        assertThat(system).startsWith(AgentDefinition.DEFAULT_SYSTEM_PROMPT.strip().substring(0, 40))
                .contains("<block label=\"human\" chars=\"9/5000\" permission=\"read_write\">")
                .contains("<description>What I know about the user</description>")
                .contains("Name: Ana")
                .contains("- Recall memory: 0 messages")
                .contains("- Archival memory: 0 entries.")
                .contains("- Notes about this user: 0.");
    }

    @Test
    void thePromptNamesTheArchivesTheAgentsArchivalSearchCovers() {
        Agent agent = agent(script("{\"turns\": []}"), 10);
        assertThat(agent.compilePrompt().systemText()).doesNotContain("Shared archives");
        Archive handbook = fx.store.archives().create("ana", "handbook", "");
        fx.store.archives().attach(ANA, handbook.id());
        assertThat(agent.compilePrompt().systemText())
                .contains("- Shared archives your archival search also covers: 'handbook'.");
        fx.store.archives().detach(ANA, handbook.id());
        assertThat(agent.compilePrompt().systemText()).doesNotContain("Shared archives");
    }
}

package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agent-to-agent messages, subagents and approvals. */
class AgentMessagingTest {
    private static final Scope HELPER = Scope.of("ana", "helper");
    private static final Scope PLANNER = Scope.of("ana", "planner");

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent create(String id, String model) {
        return fx.runtime.create(AgentDefinition.builder("ana").id(id).model(model).build());
    }

    @Test
    void anAgentMessagesAnotherAgentAndUsesItsReply() {
        fx = new AgentFixture(dir).open(b -> b
                .model("script:helper", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "Plan a day in Lisbon", "target_agent_id": "planner"}}]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "Your plan: tram 28, then Belem."}}],
                           "expect_in_prompt": ["Tram 28 in the morning, Belem after lunch."]}
                        ]}"""))
                .model("script:planner", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "Tram 28 in the morning, Belem after lunch."}}],
                           "expect_in_prompt": ["[Message from agent 'helper'] Plan a day in Lisbon"]}
                        ]}""")));
        Agent helper = create("helper", "script:helper");
        create("planner", "script:planner");

        AgentResponse r = helper.send("Plan my Lisbon day");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
        assertThat(r.reply()).contains("Your plan: tram 28, then Belem.");
        assertThat(r.steps()).isEqualTo(2);
        ConversationMessage received = fx.messages(PLANNER).getFirst();
        assertThat(received.role()).isEqualTo(MessageRole.USER);
        assertThat(received.content()).isEqualTo("[Message from agent 'helper'] Plan a day in Lisbon");
        assertThat(fx.messages(HELPER).get(2).content()).contains("\"reply\":\"Tram 28 in the morning, Belem after lunch.\"");
        assertThat(fx.events(AgentEvent.MessageSent.class)).extracting(AgentEvent.MessageSent::scope, e -> e.toAgentId().orElse("user"))
                .containsExactly(org.assertj.core.groups.Tuple.tuple(HELPER, "planner"),
                        org.assertj.core.groups.Tuple.tuple(PLANNER, "user"),
                        org.assertj.core.groups.Tuple.tuple(HELPER, "user"));
    }

    @Test
    void anAgentCannotWriteBackToTheAgentWaitingForIt() {
        fx = new AgentFixture(dir).open(b -> b
                .model("script:helper", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "ping", "target_agent_id": "planner"}}]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "done"}}]}
                        ]}"""))
                .model("script:planner", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "pong", "target_agent_id": "helper"}}]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "pong, properly"}}],
                           "expect_in_prompt": ["is waiting for your answer"]}
                        ]}""")));
        Agent helper = create("helper", "script:helper");
        create("planner", "script:planner");
        assertThat(helper.send("start").reply()).contains("done");
        assertThat(fx.messages(HELPER).get(2).content()).contains("pong, properly");
    }

    @Test
    void depthLimitStopsChainsAndUnknownAgentsAreNamed() {
        fx = new AgentFixture(dir).open(b -> b.maxAgentDepth(1)
                .model("script:helper", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "ping", "target_agent_id": "planner"}},
                                          {"name": "send_message", "arguments": {"message": "ping", "target_agent_id": "ghost"}}]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "alone"}}]}
                        ]}""")));
        Agent helper = create("helper", "script:helper");
        create("planner", "script:helper");
        fx.runtime.create(AgentDefinition.builder("ben").id("ghost").model("script:helper").build());
        AgentResponse r = helper.send("start");
        assertThat(r.toolResults().get(0).content()).contains("already 1 agents deep (helper)");
        assertThat(r.toolResults().get(1).content()).contains("There is no agent 'ghost' for this user");
        assertThat(r.reply()).contains("alone");
        assertThat(fx.messages(PLANNER)).isEmpty();
        assertThat(fx.messages(Scope.of("ben", "ghost"))).isEmpty(); // another user's agent is never reached
    }

    @Test
    void aSubagentDoesATaskAndItsAnswerComesBack() {
        fx = new AgentFixture(dir).open(b -> b.model("script:helper", script("""
                {"turns": [
                  {"tool_calls": [{"name": "spawn_subagent", "arguments": {"task": "List three teas", "name": "researcher"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Green, black, oolong."}}],
                   "expect_in_prompt": ["You are a subagent of agent 'helper'", "[Message from agent 'helper'] List three teas"]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Try green, black or oolong."}}],
                   "expect_in_prompt": ["Green, black, oolong."]}
                ]}""")));
        Agent helper = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:helper")
                .addTools("spawn_subagent").build());

        AgentResponse r = helper.send("Which teas are there?");

        assertThat(r.reply()).contains("Try green, black or oolong.");
        AgentDefinition child = fx.runtime.list("ana").stream().filter(d -> d.parentAgentId().isPresent()).findFirst().orElseThrow();
        assertThat(child.parentAgentId()).contains("helper");
        assertThat(child.id()).startsWith("helper-sub-");
        assertThat(fx.messages(child.scope())).extracting(ConversationMessage::role)
                .containsExactly(MessageRole.USER, MessageRole.ASSISTANT, MessageRole.TOOL);
        assertThat(r.toolResults().getFirst().content()).contains("\"reply\":\"Green, black, oolong.\"");
    }

    @Test
    void aSubagentNeverHasMoreRightsThanItsParent() {
        fx = new AgentFixture(dir).open(b -> b.model("script:helper", script("""
                {"turns": [
                  {"tool_calls": [{"name": "spawn_subagent", "arguments": {"task": "Save a note that Ana likes tea"}}]},
                  {"tool_calls": [{"name": "memory_save", "arguments": {"content": "Ana likes tea"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "I may not save notes."}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "The note could not be saved."}}]}
                ]}""")));
        Agent helper = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:helper")
                .addTools("spawn_subagent").denyTools("memory_save").build());

        AgentResponse r = helper.send("Remember that I like tea.");

        assertThat(r.reply()).contains("The note could not be saved.");
        assertThat(fx.store.notes().count("ana")).as("the parent's deny list holds for its subagent").isZero();
        AgentDefinition child = fx.runtime.list("ana").stream().filter(d -> d.parentAgentId().isPresent()).findFirst().orElseThrow();
        assertThat(child.denyTools()).containsExactly("memory_save");
        assertThat(child.approvalMode()).isEqualTo(helper.definition().approvalMode());
    }

    record Launch(String target) {
    }

    @Test
    void privilegedToolsAskTheApprovalHandlerAndTheRequestIsAnEvent() {
        AtomicInteger launches = new AtomicInteger();
        AiTool<Launch, String> launch = AiTool.of("launch", "Launch something.", Launch.class, SafetyTier.PRIVILEGED,
                (in, ctx) -> "launched " + in.target() + " #" + launches.incrementAndGet());
        AtomicInteger asked = new AtomicInteger();
        fx = new AgentFixture(dir).open(b -> b.tool(launch)
                .approvalHandler(req -> CompletableFuture.completedFuture(asked.incrementAndGet() == 1
                        ? ApprovalDecision.approve() : ApprovalDecision.deny("not twice")))
                .model("script:test", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "launch", "arguments": {"target": "rocket", "request_heartbeat": true}},
                                          {"name": "block", "arguments": {"operation": "list"}}]},
                          {"tool_calls": [{"name": "launch", "arguments": {"target": "boat", "request_heartbeat": true}}]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "One launched."}}]}
                        ]}""")));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test").addTools("launch").build());

        AgentResponse r = agent.send("launch things");

        assertThat(r.toolResults()).extracting(t -> t.status()).containsExactly(ToolStatus.SUCCESS, ToolStatus.SUCCESS,
                ToolStatus.APPROVAL_DENIED, ToolStatus.SUCCESS);
        assertThat(launches).hasValue(1);
        assertThat(fx.events(AgentEvent.ApprovalRequested.class)).hasSize(2)
                .allSatisfy(e -> assertThat(e.request().toolName()).isEqualTo("launch"));
    }
}

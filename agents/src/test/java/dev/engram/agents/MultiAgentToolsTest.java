package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Letta's multi-agent tools over the runtime's router, with Letta's argument names, scoped to the user's own agents. */
class MultiAgentToolsTest {
    private static final List<String> TOOLS = List.of("send_message", MultiAgentTools.WAIT_FOR_REPLY,
            MultiAgentTools.MATCHING_TAGS, MultiAgentTools.ASYNC);

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent create(String user, String id, String model, List<String> tags) {
        return fx.runtime.create(AgentDefinition.builder(user).id(id).model(model).tools(TOOLS).tags(tags).build());
    }

    private static String answer(String text) {
        return "{\"turns\": [{\"tool_calls\": [{\"name\": \"send_message\", \"arguments\": {\"message\": \"" + text + "\"}}]}]}";
    }

    @Test
    void waitForReplyDeliversWithLettasArgumentsAndReturnsTheReply() {
        fx = new AgentFixture(dir).open(b -> b
                .model("script:boss", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message_to_agent_and_wait_for_reply",
                                           "arguments": {"message": "Price of tea?", "other_agent_id": "clerk"}}]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "Tea is 3 euros."}}],
                           "expect_in_prompt": ["3 euros a box"]}
                        ]}"""))
                .model("script:clerk", script(answer("3 euros a box"))));
        Agent boss = create("ana", "boss", "script:boss", List.of());
        create("ana", "clerk", "script:clerk", List.of());

        AgentResponse r = boss.send("How much is tea?");

        assertThat(r.reply()).contains("Tea is 3 euros.");
        assertThat(r.toolResults().getFirst().isError()).isFalse();
        assertThat(r.toolResults().getFirst().content()).contains("\"agent_id\":\"clerk\"", "\"response\":[\"3 euros a box\"]");
        assertThat(fx.messages(Scope.of("ana", "clerk")).getFirst().content()).contains("Price of tea?", "'boss'");
    }

    @Test
    void matchingTagsReachesOnlyTheUsersAgentsWithAllAndSomeOfTheTags() {
        fx = new AgentFixture(dir).open(b -> b
                .model("script:boss", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message_to_agents_matching_tags",
                                           "arguments": {"message": "Status?", "match_all": ["team"], "match_some": ["eu", "asia"]}}]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "All fine."}}]}
                        ]}"""))
                .model("script:eu", script(answer("EU fine")))
                .model("script:silent", script("{\"turns\": []}")));
        Agent boss = create("ana", "boss", "script:boss", List.of("team", "eu"));
        create("ana", "eu", "script:eu", List.of("team", "eu"));
        create("ana", "us", "script:silent", List.of("team", "us"));
        create("ana", "loner", "script:silent", List.of("eu"));
        create("ben", "bens-eu", "script:silent", List.of("team", "eu"));

        AgentResponse r = boss.send("Ask the team");

        assertThat(r.toolResults().getFirst().content()).isEqualTo("[{\"agent_id\":\"eu\",\"response\":[\"EU fine\"]}]");
        assertThat(fx.messages(Scope.of("ana", "eu"))).isNotEmpty();
        assertThat(fx.messages(Scope.of("ana", "us"))).isEmpty();
        assertThat(fx.messages(Scope.of("ana", "loner"))).isEmpty();
        assertThat(fx.messages(Scope.of("ben", "bens-eu"))).isEmpty();
    }

    @Test
    void anotherUsersAgentIsNoSuchAgentAndGetsNothing() {
        fx = new AgentFixture(dir).open(b -> b
                .model("script:boss", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message_to_agent_and_wait_for_reply",
                                           "arguments": {"message": "secrets?", "other_agent_id": "vault"}},
                                          {"name": "send_message_to_agent_async",
                                           "arguments": {"message": "secrets!", "other_agent_id": "vault"}}]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "No."}}]}
                        ]}"""))
                .model("script:silent", script("{\"turns\": []}")));
        Agent boss = create("ana", "boss", "script:boss", List.of());
        create("ben", "vault", "script:silent", List.of());

        AgentResponse r = boss.send("Ask ben's vault");

        assertThat(r.toolResults()).hasSize(3);
        assertThat(r.toolResults().get(0).isError()).isTrue();
        assertThat(r.toolResults().get(0).content()).contains("There is no agent 'vault' for this user");
        assertThat(r.toolResults().get(1).isError()).isTrue();
        assertThat(r.toolResults().get(1).content()).contains("There is no agent 'vault' for this user");
        assertThat(fx.messages(Scope.of("ben", "vault"))).isEmpty();
    }

    @Test
    void anAgentFileNamingTheMultiAgentToolsGetsEngramsOwn() {
        fx = new AgentFixture(dir).open(b -> { });
        String file = """
                {"agents": [{"name": "Router", "id": "agent-0", "system": "You route.", "tool_ids": ["tool-0", "tool-1", "tool-2"],
                             "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai", "context_window": 8000},
                             "messages": [], "in_context_message_ids": []}],
                 "blocks": [],
                 "tools": [{"id": "tool-0", "name": "send_message_to_agent_and_wait_for_reply", "tool_type": "letta_multi_agent_core"},
                           {"id": "tool-1", "name": "send_message_to_agents_matching_tags", "tool_type": "letta_multi_agent_core"},
                           {"id": "tool-2", "name": "send_message_to_agent_async", "tool_type": "letta_multi_agent_core"}],
                 "groups": [], "files": [], "sources": [], "mcp_servers": []}""";
        AgentFileImport imported = fx.runtime.importLettaAgentFile(AgentImport.json(file, "router.af").user("ana"));
        assertThat(imported.agents().getFirst().definition().tools()).contains(MultiAgentTools.WAIT_FOR_REPLY,
                MultiAgentTools.MATCHING_TAGS, MultiAgentTools.ASYNC);
        assertThat(imported.agents().getFirst().definition().declaredTools()).isEmpty();
        assertThat(imported.warnings()).noneMatch(w -> w.contains("send_message_to"));
        assertThat(LettaTools.toolType(MultiAgentTools.ASYNC)).isEqualTo(LettaTools.MULTI_AGENT_CORE);
    }

    @Test
    void asyncReturnsAtOnceAndTheTargetGetsTheMessage() throws InterruptedException {
        fx = new AgentFixture(dir).open(b -> b
                .model("script:boss", script("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message_to_agent_async",
                                           "arguments": {"message": "Remember the meeting", "other_agent_id": "clerk"}}]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "Told the clerk."}}]}
                        ]}"""))
                .model("script:clerk", script(answer("Noted"))));
        Agent boss = create("ana", "boss", "script:boss", List.of());
        create("ana", "clerk", "script:clerk", List.of());

        AgentResponse r = boss.send("Tell the clerk");

        assertThat(r.toolResults().getFirst().content()).contains("Successfully sent message");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<ConversationMessage> got = fx.messages(Scope.of("ana", "clerk"));
        while (got.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
            got = fx.messages(Scope.of("ana", "clerk"));
        }
        assertThat(got.getFirst().content()).contains("one-way notification", "Remember the meeting", "'boss'");
        assertThat(got).flatMap(ConversationMessage::toolCalls).anySatisfy(c -> assertThat(c.arguments()).contains("Noted"));
    }
}

package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code summarize}, {@code recompile} (and {@code system-prompt/recompile}), {@code core-memory} and its
 * {@code variables}, {@code POST export}, and identities attached to agents and blocks: each does what Letta's does on
 * Engram's model of things, refuses bad input with nothing changed, and is a 404 for another user's key.
 */
class AgentOpsEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:sum", new ConversationCompactEndpointsTest.SummarisingModel())));
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "helper", "model", "test:sum",
                "memory_blocks", List.of(obj("label", "human", "value", "Ana likes tea."), obj("label", "persona",
                        "value", "I am helpful."))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        agent = created.json().path("id").asString();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private void say(String text) {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage(text));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
    }

    private List<ConversationMessage> inContext() {
        return fx.store.messages().list(Scope.of("ana", agent), MessageQuery.inContext().withLimit(1_000));
    }

    @Test
    void summarizeCompactsTheAgentsOwnContextWindowAndTheContextShowsTheSummary() {
        for (String line : List.of("to Lisbon", "in May", "by train", "with Ben")) {
            say(line);
        }
        ServerFixture.Response done = fx.post(fx.ana, "/v1/agents/" + agent + "/summarize", obj("compaction_settings",
                Map.of("model", "letta/auto")));

        assertThat(done.status()).as(done.text()).isEqualTo(200);
        assertThat(done.json().path("summary").asString()).contains("to Lisbon").doesNotContain("with Ben");
        int before = done.json().path("num_messages_before").asInt();
        int after = done.json().path("num_messages_after").asInt();
        assertThat(before).isEqualTo(12);
        assertThat(after).isLessThan(before);
        JsonNode context = fx.get(fx.ana, "/v1/agents/" + agent + "/context").json();
        assertThat(context.path("summary_memory").asString()).contains("Summary: ").contains("to Lisbon");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json().path("message_ids").size()).isEqualTo(after);
        // Without a body, as Letta's clients call it.
        say("again");
        say("and again");
        ServerFixture.Response bare = fx.post(fx.ana, "/v1/agents/" + agent + "/summarize", null);
        assertThat(bare.status()).as(bare.text()).isEqualTo(200);
    }

    @Test
    void summarizeRefusesBadInputAndChangesNothing() {
        ServerFixture.Response empty = fx.post(fx.ana, "/v1/agents/" + agent + "/summarize", obj());
        assertThat(empty.status()).isEqualTo(400);
        assertThat(empty.detail()).contains("No in-context messages");
        say("one");
        say("two");
        List<ConversationMessage> before = inContext();
        ServerFixture.Response mode = fx.post(fx.ana, "/v1/agents/" + agent + "/summarize",
                obj("compaction_settings", Map.of("mode", "all")));
        assertThat(mode.status()).isEqualTo(422);
        assertThat(mode.detail()).contains("compaction_settings.mode");
        ServerFixture.Response zero = fx.post(fx.ana, "/v1/agents/" + agent + "/summarize", obj("max_message_length", 0));
        assertThat(zero.status()).isEqualTo(422);
        assertThat(zero.text()).contains("max_message_length");
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/summarize", obj("max_message_length", "ten")).status())
                .isEqualTo(422);
        ServerFixture.Response fits = fx.post(fx.ana, "/v1/agents/" + agent + "/summarize", obj("max_message_length", 100));
        assertThat(fits.status()).isEqualTo(400);
        assertThat(fits.detail()).contains("nothing to summarize");
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/summarize", "[1]").status()).isEqualTo(422);
        assertThat(inContext()).isEqualTo(before);
    }

    @Test
    void recompileAnswersTheSystemPromptFromTheBlocksAsTheyAreNow() {
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/human", obj("value", "Ana drinks coffee now."))
                .status()).isEqualTo(200);
        for (String path : List.of("/recompile", "/recompile?dry_run=true&update_timestamp=true", "/system-prompt/recompile")) {
            ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + path, null);
            assertThat(r.status()).as(path + ": " + r.text()).isEqualTo(200);
            assertThat(r.json().isString()).isTrue();
            assertThat(r.json().asString()).contains("<memory_blocks>").contains("Ana drinks coffee now.")
                    .doesNotContain("Ana likes tea.");
        }
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/context").json().path("core_memory").asString())
                .contains("Ana drinks coffee now.");
        ServerFixture.Response bad = fx.post(fx.ana, "/v1/agents/" + agent + "/recompile?dry_run=maybe", null);
        assertThat(bad.status()).isEqualTo(422);
        assertThat(bad.text()).contains("dry_run");
    }

    @Test
    void coreMemoryIsLettasMemoryAndAnAgentHasNoTemplateVariables() {
        ServerFixture.Response memory = fx.get(fx.ana, "/v1/agents/" + agent + "/core-memory");
        assertThat(memory.status()).as(memory.text()).isEqualTo(200);
        assertThat(memory.json().path("blocks").valueStream().map(b -> b.path("label").asString()).toList())
                .containsExactlyInAnyOrder("human", "persona");
        assertThat(memory.json().path("blocks").valueStream().map(b -> b.path("value").asString()).toList())
                .contains("Ana likes tea.");
        assertThat(memory.json().path("file_blocks").isArray()).isTrue();
        assertThat(memory.json().path("git_enabled").asBoolean(true)).isFalse();
        assertThat(memory.json().path("agent_type").asString()).isEqualTo("letta_v1_agent");
        ServerFixture.Response variables = fx.get(fx.ana, "/v1/agents/" + agent + "/core-memory/variables");
        assertThat(variables.status()).isEqualTo(200);
        assertThat(variables.json().path("variables").isObject()).isTrue();
        assertThat(variables.json().path("variables").size()).isZero();
    }

    @Test
    void postExportIsGetExportWithLettasBody() {
        say("remember the tea");
        ServerFixture.Response get = fx.get(fx.ana, "/v1/agents/" + agent + "/export");
        ServerFixture.Response post = fx.post(fx.ana, "/v1/agents/" + agent + "/export", null);
        assertThat(post.status()).as(post.text()).isEqualTo(200);
        assertThat(post.json().path("agents").path(0).path("name").asString()).isEqualTo("helper");
        assertThat(post.json().path("agents").path(0).path("messages").size())
                .isEqualTo(get.json().path("agents").path(0).path("messages").size()).isPositive();
        assertThat(post.json().path("blocks")).isEqualTo(get.json().path("blocks"));
        ServerFixture.Response scrubbed = fx.post(fx.ana, "/v1/agents/" + agent + "/export",
                obj("scrub_messages", true, "skills", List.of(), "conversation_id", "default"));
        assertThat(scrubbed.status()).as(scrubbed.text()).isEqualTo(200);
        assertThat(scrubbed.json().path("agents").path(0).path("messages").size()).isZero();
        assertThat(scrubbed.json().path("agents").path(0).path("in_context_message_ids").size()).isZero();
        assertThat(scrubbed.json().path("agents").path(0).path("name").asString()).isEqualTo("helper");

        ServerFixture.Response skills = fx.post(fx.ana, "/v1/agents/" + agent + "/export",
                obj("skills", List.of(obj("name", "x", "files", List.of()))));
        assertThat(skills.status()).isEqualTo(422);
        assertThat(skills.text()).contains("skills");
        ServerFixture.Response conversation = fx.post(fx.ana, "/v1/agents/" + agent + "/export", obj("conversation_id", "conv-1"));
        assertThat(conversation.status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/export", obj("scrub_messages", "yes")).status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/messages").json().size()).isPositive();
    }

    @Test
    void anAgentAndABlockHaveTheirUsersIdentityOnly() {
        assertThat(fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "ben", "name", "Ben", "identity_type", "user"))
                .status()).isEqualTo(200);
        String block = fx.post(fx.ana, "/v1/blocks/", obj("label", "notes", "value", "shared notes")).json().path("id").asString();

        ServerFixture.Response own = fx.patch(fx.ana, "/v1/agents/" + agent + "/identities/attach/identity-ana", null);
        assertThat(own.status()).as(own.text()).isEqualTo(200);
        assertThat(own.json().path("identity_ids").valueStream().map(JsonNode::asString).toList()).containsExactly("identity-ana");
        ServerFixture.Response ownBlock = fx.patch(fx.ana, "/v1/blocks/" + block + "/identities/attach/identity-ana", null);
        assertThat(ownBlock.status()).as(ownBlock.text()).isEqualTo(200);
        assertThat(ownBlock.json().path("id").asString()).isEqualTo(block);
        assertThat(ownBlock.json().path("identity_ids").path(0).asString()).isEqualTo("identity-ana");

        ServerFixture.Response other = fx.patch(fx.admin, "/v1/agents/" + agent + "/identities/attach/identity-ben", null);
        assertThat(other.status()).isEqualTo(409);
        assertThat(other.detail()).contains("export");
        assertThat(fx.patch(fx.admin, "/v1/blocks/" + block + "/identities/attach/identity-ben", null).status()).isEqualTo(409);
        // A detach, as in Letta, never fails for what the caller sees, and changes nothing: the user's identity stays.
        ServerFixture.Response leave = fx.patch(fx.ana, "/v1/agents/" + agent + "/identities/detach/identity-ana", null);
        assertThat(leave.status()).as(leave.text()).isEqualTo(200);
        assertThat(leave.json().path("identity_ids").valueStream().map(JsonNode::asString).toList()).containsExactly("identity-ana");
        ServerFixture.Response leaveBlock = fx.patch(fx.ana, "/v1/blocks/" + block + "/identities/detach/identity-ana", null);
        assertThat(leaveBlock.status()).as(leaveBlock.text()).isEqualTo(200);
        assertThat(leaveBlock.json().path("identity_ids").path(0).asString()).isEqualTo("identity-ana");
        ServerFixture.Response never = fx.patch(fx.admin, "/v1/agents/" + agent + "/identities/detach/identity-ben", null);
        assertThat(never.status()).as(never.text()).isEqualTo(200);
        assertThat(never.json().path("identity_ids").valueStream().map(JsonNode::asString).toList()).containsExactly("identity-ana");
        assertThat(fx.patch(fx.admin, "/v1/blocks/" + block + "/identities/detach/identity-ben", null).status()).isEqualTo(200);
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/identities/detach/identity-ben", null).status()).isEqualTo(404);
        // ana's key does not see ben's identity at all.
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/identities/attach/identity-ben", null).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ana, "/v1/blocks/" + block + "/identities/attach/identity-ben", null).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/identities/attach/not-an-identity", null).status()).isEqualTo(404);

        JsonNode state = fx.get(fx.ana, "/v1/agents/" + agent).json();
        assertThat(state.path("identity_ids").valueStream().map(JsonNode::asString).toList()).containsExactly("identity-ana");
        assertThat(fx.store.agents().list("ben")).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/blocks/" + block).json().path("value").asString()).isEqualTo("shared notes");
    }

    @Test
    void theContextShowsToolUsageRulesApartAndAConversationsOwnMessages() {
        ServerFixture.Response ruled = fx.post(fx.ana, "/v1/agents/", obj("name", "ruled", "model", "test:sum",
                "system", "You are Ruled.", "tool_rules", List.of(obj("type", "exit_loop", "tool_name", "send_message"))));
        String id = ruled.json().path("id").asString();
        JsonNode context = fx.get(fx.ana, "/v1/agents/" + id + "/context").json();
        assertThat(context.path("system_prompt").asString()).isEqualTo("You are Ruled.");
        assertThat(context.path("tool_usage_rules").asString()).contains("send_message");
        assertThat(context.path("num_tokens_tool_usage_rules").asInt()).isPositive();
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/context").json().path("tool_usage_rules").isNull()).isTrue();

        say("in the agent's own history");
        String conversation = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj()).json().path("id").asString();
        ServerFixture.Response empty = fx.get(fx.ana, "/v1/agents/" + agent + "/context?conversation_id=" + conversation);
        assertThat(empty.status()).as(empty.text()).isEqualTo(200);
        assertThat(empty.json().path("num_messages").asInt()).isZero();
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/context?conversation_id=default").json().path("num_messages")
                .asInt()).isPositive();
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/context?conversation_id=conv-nope").status()).isEqualTo(404);
        String others = fx.post(fx.ana, "/v1/conversations/?agent_id=" + id, obj()).json().path("id").asString();
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/context?conversation_id=" + others).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/agents/" + agent + "/context?conversation_id=" + conversation).status()).isEqualTo(404);
    }

    @Test
    void anotherUsersKeyGetsNotFoundAndChangesNothing() {
        for (String line : List.of("secret one", "secret two", "secret three")) {
            say(line);
        }
        List<ConversationMessage> before = inContext();
        String block = fx.post(fx.ana, "/v1/blocks/", obj("label", "notes", "value", "secret notes")).json().path("id").asString();
        for (String path : List.of("/summarize", "/recompile", "/system-prompt/recompile", "/export")) {
            ServerFixture.Response r = fx.post(fx.ben, "/v1/agents/" + agent + path, obj());
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.text()).doesNotContain("secret");
        }
        for (String path : List.of("/core-memory", "/core-memory/variables")) {
            ServerFixture.Response r = fx.get(fx.ben, "/v1/agents/" + agent + path);
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.text()).doesNotContain("tea");
        }
        for (String path : List.of("/v1/agents/" + agent + "/identities/attach/identity-ben",
                "/v1/agents/" + agent + "/identities/detach/identity-ana", "/v1/blocks/" + block + "/identities/attach/identity-ben",
                "/v1/blocks/" + block + "/identities/detach/identity-ana")) {
            ServerFixture.Response r = fx.patch(fx.ben, path, null);
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.text()).doesNotContain("secret");
        }
        assertThat(inContext()).isEqualTo(before);
        assertThat(fx.store.agents().list("ben")).isEmpty();
    }
}

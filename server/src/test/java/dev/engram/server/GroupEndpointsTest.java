package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code /v1/groups}: groups of a user's own agents, and their manager types' loops on scripted models. */
class GroupEndpointsTest {
    @TempDir
    Path dir;

    private ServerFixture fx;
    /** The supervisor's script, set once the ids it names exist. */
    private final AtomicReference<ChatModel> boss = new AtomicReference<>();

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private static ScriptedChatModel says(String... replies) {
        StringBuilder turns = new StringBuilder();
        for (String r : replies) {
            turns.append(turns.isEmpty() ? "" : ",").append("{\"tool_calls\": [{\"name\": \"send_message\", \"arguments\": {\"message\": \"")
                    .append(r).append("\"}}]}");
        }
        return ScriptedChatModel.fromJson("{\"turns\": [" + turns + "]}");
    }

    private void start(Map<String, ChatModel> models) {
        fx = new ServerFixture(dir, b -> b.runtime(rt -> {
            models.forEach(rt::model);
            rt.model("test:boss", new ChatModel() {
                @Override
                public String name() {
                    return "boss";
                }

                @Override
                public ChatResponse chat(ChatRequest request) {
                    return boss.get().chat(request);
                }
            });
        }));
    }

    private String agent(String key, String name, String model, String... tools) {
        ServerFixture.Response r = fx.post(key, "/v1/agents/", tools.length == 0 ? obj("name", name, "model", model)
                : obj("name", name, "model", model, "tools", List.of(tools)));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("id").asString();
    }

    private static List<String> texts(JsonNode response, String type) {
        return response.path("messages").valueStream().filter(m -> m.path("message_type").asString().equals(type))
                .map(m -> m.path("content").asString()).toList();
    }

    @Test
    void aGroupIsCreatedReadListedCountedChangedAndDeleted() {
        start(Map.of());
        String a = fx.agent(fx.ana, "a");
        String b = fx.agent(fx.ana, "b");
        ServerFixture.Response created = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(a, b), "description", "pair",
                "manager_config", obj("manager_type", "round_robin", "max_turns", 3)));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        JsonNode g = created.json();
        String id = g.path("id").asString();
        assertThat(id).startsWith("group-");
        assertThat(g.path("manager_type").asString()).isEqualTo("round_robin");
        assertThat(g.path("max_turns").asInt()).isEqualTo(3);
        assertThat(g.path("agent_ids").valueStream().map(JsonNode::asString).toList()).containsExactly(a, b);
        assertThat(g.path("manager_agent_id").isNull()).isTrue();
        String hidden = fx.post(fx.ana, "/v1/groups", obj("agent_ids", List.of(a), "description", "secret", "hidden", true,
                "manager_config", obj("manager_type", "supervisor", "manager_agent_id", b))).json().path("id").asString();

        assertThat(fx.get(fx.ana, "/v1/groups/" + id).json()).isEqualTo(g);
        assertThat(fx.get(fx.ana, "/v1/groups/").json().valueStream().map(n -> n.path("id").asString()).toList()).containsExactly(id);
        assertThat(fx.get(fx.ana, "/v1/groups?manager_type=supervisor").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/groups?project_id=whatever").json()).hasSize(1);
        assertThat(fx.get(fx.ana, "/v1/groups/count").json().asInt()).isEqualTo(2);
        assertThat(fx.get(fx.ana, "/v1/agents/" + b + "/groups").json().valueStream().map(n -> n.path("id").asString()).toList())
                .containsExactly(id, hidden);
        assertThat(fx.get(fx.ana, "/v1/agents/" + b + "/groups?manager_type=supervisor").json()).hasSize(1);

        ServerFixture.Response changed = fx.patch(fx.ana, "/v1/groups/" + id, obj("description", "trio", "agent_ids",
                List.of(b, a), "manager_config", obj("manager_type", "dynamic", "manager_agent_id", a, "termination_token", "FIN")));
        assertThat(changed.status()).as(changed.text()).isEqualTo(200);
        assertThat(changed.json().path("description").asString()).isEqualTo("trio");
        assertThat(changed.json().path("manager_type").asString()).isEqualTo("dynamic");
        assertThat(changed.json().path("termination_token").asString()).isEqualTo("FIN");
        assertThat(changed.json().path("max_turns").isNull()).as("a new manager type starts afresh").isTrue();

        assertThat(fx.delete(fx.ana, "/v1/groups/" + id).status()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/groups/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/groups/count").json().asInt()).isEqualTo(1);
        assertThat(fx.store.agents().list("ana")).hasSize(2);
    }

    @Test
    void anotherUsersAgentsAndGroupsAreNotFoundAndNothingIsCreatedOrChanged() {
        start(Map.of());
        String mine = fx.agent(fx.ana, "mine");
        String bens = fx.agent(fx.ben, "bens");
        ServerFixture.Response r = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(mine, bens), "description", "x"));
        assertThat(r.status()).as(r.text()).isEqualTo(404);
        assertThat(r.detail()).contains(bens);
        ServerFixture.Response asManager = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(mine), "description", "x",
                "manager_config", obj("manager_type", "supervisor", "manager_agent_id", bens)));
        assertThat(asManager.status()).isEqualTo(404);
        assertThat(fx.store.groups().list("ana")).isEmpty();

        String id = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(mine), "description", "anas")).json().path("id").asString();
        assertThat(fx.get(fx.ben, "/v1/groups/" + id).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/groups/" + id, obj("description", "bens now")).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/groups/" + id + "/messages", fx.userMessage("hi")).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, "/v1/groups/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/groups/").json()).isEmpty();
        assertThat(fx.get(fx.ben, "/v1/agents/" + mine + "/groups").status()).isEqualTo(404);
        assertThat(fx.patch(fx.ana, "/v1/groups/" + id, obj("agent_ids", List.of(mine, bens))).status()).isEqualTo(404);
        assertThat(fx.store.groups().get("ana", id).orElseThrow().spec().description()).isEqualTo("anas");
        assertThat(fx.store.groups().get("ana", id).orElseThrow().spec().agentIds()).containsExactly(mine);
    }

    @Test
    void badManagerConfigsAreRefusedNamingTheFieldAndNothingIsCreated() {
        start(Map.of());
        String a = fx.agent(fx.ana, "a");
        Map<String, Object> bad = Map.of(
                "manager_agent_id", obj("manager_type", "supervisor"),
                "max_turns", obj("manager_type", "round_robin", "max_turns", 0),
                "termination_token", obj("manager_type", "supervisor", "manager_agent_id", a, "termination_token", "X"),
                "sleeptime_agent_frequency", obj("manager_type", "sleeptime", "manager_agent_id", a, "sleeptime_agent_frequency", -1),
                "manager_type", obj("manager_type", "voice_sleeptime", "manager_agent_id", a));
        bad.forEach((field, config) -> {
            ServerFixture.Response r = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(a), "description", "x",
                    "manager_config", config));
            assertThat(r.status()).as(field + ": " + r.text()).isEqualTo(422);
            assertThat(r.json().path("detail").path(0).path("loc").valueStream().map(JsonNode::asString).toList())
                    .as(r.text()).containsExactly("body", "manager_config", field);
        });
        ServerFixture.Response twice = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(a, a), "description", "x"));
        assertThat(twice.status()).isEqualTo(422);
        assertThat(twice.text()).contains("agent_ids", "twice");
        assertThat(fx.post(fx.ana, "/v1/groups/", obj("description", "x")).status()).isEqualTo(422);
        assertThat(fx.store.groups().list("ana")).isEmpty();
    }

    @Test
    void roundRobinGivesEachAgentItsTurnWithWhatTheOthersSaid() {
        start(Map.of(
                "test:alice", ScriptedChatModel.fromJson("""
                        {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "Tea, surely."}}],
                                    "expect_in_prompt": ["Tea or coffee?"]}]}"""),
                "test:bob", ScriptedChatModel.fromJson("""
                        {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "Coffee, obviously."}}],
                                    "expect_in_prompt": ["[Message from agent 'alice'", "Tea, surely.", "Tea or coffee?"]}]}""")));
        String alice = agent(fx.ana, "alice", "test:alice");
        String bob = agent(fx.ana, "bob", "test:bob");
        String id = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(alice, bob), "description", "drinks")).json()
                .path("id").asString();

        ServerFixture.Response r = fx.post(fx.ana, "/v1/groups/" + id + "/messages", fx.userMessage("Tea or coffee?"));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(texts(r.json(), "assistant_message")).containsExactly("Tea, surely.", "Coffee, obviously.");
        assertThat(r.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("end_turn");
        assertThat(r.json().path("usage").path("step_count").asInt()).isEqualTo(2);
        assertThat(r.json().path("usage").path("run_ids")).hasSize(2);
        assertThat(fx.get(fx.ana, "/v1/groups/" + id).json().path("turns_counter").asInt()).isEqualTo(1);

        JsonNode listed = fx.get(fx.ana, "/v1/groups/" + id + "/messages?limit=50&order=asc").json();
        assertThat(texts(listed, "assistant_message")).isEmpty(); // a list, not a LettaResponse
        assertThat(listed.valueStream().filter(m -> m.path("message_type").asString().equals("assistant_message"))
                .map(m -> m.path("content").asString()).toList()).containsExactly("Tea, surely.", "Coffee, obviously.");

        // one of the group's messages corrected through the group: it is bob's, who stored it
        String bobsReply = listed.valueStream().filter(m -> m.path("message_type").asString().equals("assistant_message")
                && m.path("content").asString().equals("Coffee, obviously.")).findFirst().orElseThrow().path("id").asString();
        ServerFixture.Response edited = fx.patch(fx.ana, "/v1/groups/" + id + "/messages/" + bobsReply,
                obj("message_type", "assistant_message", "content", "Coffee, at last."));
        assertThat(edited.status()).as(edited.text()).isEqualTo(200);
        assertThat(edited.json().path("content").asString()).isEqualTo("Coffee, at last.");
        assertThat(fx.get(fx.ana, "/v1/agents/" + bob + "/messages?limit=50").text()).contains("Coffee, at last.")
                .doesNotContain("Coffee, obviously.");
        // bad input changes nothing; a message of no agent of the group, and another user's key, are 404
        assertThat(fx.patch(fx.ana, "/v1/groups/" + id + "/messages/" + bobsReply, obj("message_type", "tool_message",
                "content", "x")).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, "/v1/groups/" + id + "/messages/message-999999", obj("content", "x")).status())
                .isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/groups/" + id + "/messages/" + bobsReply, obj("content", "x")).status())
                .isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/agents/" + bob + "/messages?limit=50").text()).contains("Coffee, at last.");

        assertThat(fx.patch(fx.ana, "/v1/groups/" + id + "/reset-messages", obj()).status()).isEqualTo(200);
        assertThat(fx.store.messages().list(Scope.of("ana", alice), MessageQuery.inContext().withSession(id))).isEmpty();
        assertThat(fx.store.messages().list(Scope.of("ana", alice), MessageQuery.all().withSession(id))).isNotEmpty();
    }

    @Test
    void aSupervisorDelegatesToAMemberThroughTheMultiAgentTools() {
        start(Map.of("test:worker", says("The report is ready.")));
        String worker = agent(fx.ana, "worker", "test:worker");
        String supervisor = agent(fx.ana, "supervisor", "test:boss", "send_message", "send_message_to_agent_and_wait_for_reply");
        boss.set(ScriptedChatModel.fromJson("""
                {"turns": [
                  {"tool_calls": [{"name": "send_message_to_agent_and_wait_for_reply",
                                   "arguments": {"message": "Is the report ready?", "other_agent_id": "%s"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Yes, the worker says it is ready."}}],
                   "expect_in_prompt": ["The report is ready."]}
                ]}""".formatted(worker)));
        String id = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(worker), "description", "office",
                "manager_config", obj("manager_type", "supervisor", "manager_agent_id", supervisor))).json().path("id").asString();

        ServerFixture.Response r = fx.post(fx.ana, "/v1/groups/" + id + "/messages", fx.userMessage("Report?"));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(texts(r.json(), "assistant_message")).containsExactly("Yes, the worker says it is ready.");
        assertThat(r.json().path("messages").valueStream().filter(m -> m.path("message_type").asString().equals("tool_return_message"))
                .map(m -> m.path("tool_return").asString()).toList()).anySatisfy(t -> assertThat(t).contains("The report is ready."));
        assertThat(fx.store.messages().list(Scope.of("ana", worker), MessageQuery.all()).getFirst().content())
                .contains("Is the report ready?", supervisor);
    }

    @Test
    void aDynamicManagerPicksSpeakersUntilTheTerminationToken() {
        start(Map.of(
                "test:chair", ScriptedChatModel.fromJson("""
                        {"turns": [
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "alice"}}],
                           "expect_in_prompt": ["Who should speak next?", "Plan the trip"]},
                          {"tool_calls": [{"name": "send_message", "arguments": {"message": "bob, please"}}],
                           "expect_in_prompt": ["alice: Lisbon in May."]}
                        ]}"""),
                "test:alice", says("Lisbon in May."),
                "test:bob", says("Agreed. FIN")));
        String chair = agent(fx.ana, "chair", "test:chair");
        String alice = agent(fx.ana, "alice", "test:alice");
        String bob = agent(fx.ana, "bob", "test:bob");
        String id = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(alice, bob), "description", "trip",
                "manager_config", obj("manager_type", "dynamic", "manager_agent_id", chair, "termination_token", "FIN",
                        "max_turns", 5))).json().path("id").asString();

        ServerFixture.Response r = fx.post(fx.ana, "/v1/groups/" + id + "/messages", fx.userMessage("Plan the trip"));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(texts(r.json(), "assistant_message")).containsExactly("alice", "Lisbon in May.", "bob, please", "Agreed. FIN");
        assertThat(r.json().path("usage").path("run_ids")).hasSize(4);
    }

    @Test
    void aSleeptimeGroupsMembersReadTheMainAgentsExchangeEveryNthMessage() throws InterruptedException {
        start(Map.of("test:main", says("Noted: you like tea.", "Noted: you like cake."), "test:sleeper", says("Filed.")));
        String main = agent(fx.ana, "main", "test:main");
        String sleeper = agent(fx.ana, "sleeper", "test:sleeper");
        String id = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(sleeper), "description", "memory",
                "manager_config", obj("manager_type", "sleeptime", "manager_agent_id", main, "sleeptime_agent_frequency", 2)))
                .json().path("id").asString();
        Scope sleeperScope = Scope.of("ana", sleeper);

        ServerFixture.Response first = fx.post(fx.ana, "/v1/groups/" + id + "/messages", fx.userMessage("I like tea"));
        assertThat(texts(first.json(), "assistant_message")).containsExactly("Noted: you like tea.");
        assertThat(fx.store.messages().list(sleeperScope, MessageQuery.all())).as("not on the first message").isEmpty();

        ServerFixture.Response second = fx.post(fx.ana, "/v1/groups/" + id + "/messages", fx.userMessage("I like cake"));
        assertThat(texts(second.json(), "assistant_message")).containsExactly("Noted: you like cake.");
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
        while (fx.store.messages().list(sleeperScope, MessageQuery.all()).size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(fx.store.messages().list(sleeperScope, MessageQuery.all().withSession(id)).getFirst().content())
                .contains("Recent conversation of agent 'main'", "I like cake", "Noted: you like cake.");
        assertThat(fx.get(fx.ana, "/v1/groups/" + id).json().path("turns_counter").asInt()).isEqualTo(2);
    }

    @Test
    void aSharedBlockIsAttachedToEveryMemberAndDetached() {
        start(Map.of());
        String a = fx.agent(fx.ana, "a");
        String b = fx.agent(fx.ana, "b");
        String block = fx.post(fx.ana, "/v1/blocks/", obj("label", "team", "value", "We ship on Fridays.")).json()
                .path("id").asString();
        String id = fx.post(fx.ana, "/v1/groups/", obj("agent_ids", List.of(a, b), "description", "team")).json()
                .path("id").asString();
        String bensBlock = fx.post(fx.ben, "/v1/blocks/", obj("label", "bens", "value", "x")).json().path("id").asString();
        assertThat(fx.patch(fx.ana, "/v1/groups/" + id + "/blocks/attach/" + bensBlock, obj()).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/groups/" + id + "/blocks/attach/" + block, obj()).status()).isEqualTo(404);

        assertThat(fx.patch(fx.ana, "/v1/groups/" + id + "/blocks/attach/" + block, obj()).status()).isEqualTo(200);
        for (String agent : List.of(a, b)) {
            assertThat(fx.store.blocks().get(Scope.of("ana", agent), "team")).isPresent();
        }
        assertThat(fx.get(fx.ana, "/v1/groups/" + id).json().path("shared_block_ids").path(0).asString()).isEqualTo(block);

        assertThat(fx.patch(fx.ana, "/v1/groups/" + id + "/blocks/detach/" + block, obj()).status()).isEqualTo(200);
        for (String agent : List.of(a, b)) {
            assertThat(fx.store.blocks().get(Scope.of("ana", agent), "team")).isEmpty();
        }
        assertThat(fx.get(fx.ana, "/v1/groups/" + id).json().path("shared_block_ids")).isEmpty();
    }
}

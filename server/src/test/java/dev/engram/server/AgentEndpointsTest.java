package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class AgentEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void healthNeedsNoKey() {
        ServerFixture.Response r = fx.get(null, "/v1/health/");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().path("status").asString()).isEqualTo("ok");
    }

    @Test
    void anAgentIsCreatedWithItsBlocksToolsAndRulesAndReadBack() {
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj(
                "name", "helper", "system", "You help.", "model", "test:echo", "tags", List.of("support", "eu"),
                "memory_blocks", List.of(obj("label", "human", "value", "Ana", "limit", 500, "description", "The user"),
                        obj("label", "persona", "value", "Helpful", "read_only", true)),
                "tools", List.of("archival_memory_insert"),
                "tool_rules", List.of(obj("type", "exit_loop", "tool_name", "send_message"))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        JsonNode a = created.json();
        String id = a.path("id").asString();
        assertThat(id).startsWith("agent-");
        assertThat(a.path("name").asString()).isEqualTo("helper");
        assertThat(a.path("system").asString()).isEqualTo("You help.");
        assertThat(a.path("tags")).extracting(JsonNode::asString).containsExactly("support", "eu");
        assertThat(a.path("memory").path("blocks")).extracting(b -> b.path("label").asString()).contains("human", "persona");
        assertThat(a.path("blocks")).anySatisfy(b -> {
            assertThat(b.path("label").asString()).isEqualTo("persona");
            assertThat(b.path("read_only").asBoolean()).isTrue();
        });
        assertThat(a.path("tools")).extracting(t -> t.path("name").asString()).contains("send_message", "archival_memory_insert");
        assertThat(a.path("tool_rules").get(0).path("type").asString()).isEqualTo("exit_loop");
        assertThat(a.path("llm_config").path("context_window").asInt()).isPositive();

        ServerFixture.Response read = fx.get(fx.ana, "/v1/agents/" + id);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().path("name").asString()).isEqualTo("helper");
    }

    @Test
    void agentsAreListedFilteredPagedAndCounted() {
        String a1 = fx.agent(fx.ana, "one");
        String a2 = fx.agent(fx.ana, "two");
        String a3 = fx.agent(fx.ana, "three");
        fx.patch(fx.ana, "/v1/agents/" + a2, obj("tags", List.of("vip")));
        fx.agent(fx.ben, "bens");

        JsonNode all = fx.get(fx.ana, "/v1/agents/?order=asc").json();
        assertThat(all).extracting(x -> x.path("id").asString()).containsExactly(a1, a2, a3);
        JsonNode desc = fx.get(fx.ana, "/v1/agents/").json();
        assertThat(desc).extracting(x -> x.path("id").asString()).containsExactly(a3, a2, a1);
        assertThat(fx.get(fx.ana, "/v1/agents/?order=asc&limit=2").json()).hasSize(2);
        assertThat(fx.get(fx.ana, "/v1/agents/?order=asc&after=" + a1).json()).extracting(x -> x.path("id").asString())
                .containsExactly(a2, a3);
        assertThat(fx.get(fx.ana, "/v1/agents/?order=asc&before=" + a3).json()).extracting(x -> x.path("id").asString())
                .containsExactly(a1, a2);
        assertThat(fx.get(fx.ana, "/v1/agents/?name=two").json()).extracting(x -> x.path("id").asString()).containsExactly(a2);
        assertThat(fx.get(fx.ana, "/v1/agents/?tags=vip").json()).extracting(x -> x.path("id").asString()).containsExactly(a2);
        assertThat(fx.get(fx.ana, "/v1/agents/count").json().asInt()).isEqualTo(3);
        assertThat(fx.get(fx.ben, "/v1/agents/count").json().asInt()).isEqualTo(1);
        assertThat(fx.get(fx.admin, "/v1/agents/count").json().asInt()).isEqualTo(4);
    }

    @Test
    void anAgentIsModifiedAndDeleted() {
        String id = fx.agent(fx.ana, "helper");
        ServerFixture.Response r = fx.patch(fx.ana, "/v1/agents/" + id, obj("name", "renamed", "system", "Be brief.",
                "tags", List.of("x"), "tool_ids", List.of("tool-send_message", "tool-block")));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("name").asString()).isEqualTo("renamed");
        assertThat(r.json().path("system").asString()).isEqualTo("Be brief.");
        assertThat(r.json().path("tools")).extracting(t -> t.path("name").asString()).containsExactly("send_message", "block");
        assertThat(fx.delete(fx.ana, "/v1/agents/" + id).status()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/agents/" + id).status()).isEqualTo(404);
    }

    @Test
    void badInputIsA422Or400NamingTheFieldAndCreatesNothing() {
        ServerFixture.Response wrongType = fx.post(fx.ana, "/v1/agents/", obj("name", 42));
        assertThat(wrongType.status()).isEqualTo(422);
        assertThat(wrongType.json().path("detail").get(0).path("loc")).extracting(JsonNode::asString).containsExactly("body", "name");
        assertThat(fx.post(fx.ana, "/v1/agents/", "{not json").status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/", "[1, 2]").status()).isEqualTo(422);
        ServerFixture.Response model = fx.post(fx.ana, "/v1/agents/", obj("name", "m", "model", "acme/brain"));
        assertThat(model.status()).isEqualTo(422);
        assertThat(model.text()).contains("Unknown model 'acme/brain'");
        ServerFixture.Response tool = fx.post(fx.ana, "/v1/agents/", obj("name", "t", "tools", List.of("teleport")));
        assertThat(tool.status()).isEqualTo(400);
        assertThat(tool.detail()).contains("teleport");
        ServerFixture.Response block = fx.post(fx.ana, "/v1/agents/", obj("name", "b", "memory_blocks",
                List.of(obj("label", "human", "value", "too long", "limit", 3))));
        assertThat(block.status()).isEqualTo(422);
        ServerFixture.Response rules = fx.post(fx.ana, "/v1/agents/", obj("name", "r", "tool_rules",
                List.of(obj("type", "exit_loop"))));
        assertThat(rules.status()).isEqualTo(422);
        fx.agent(fx.ana, "taken");
        assertThat(fx.get(fx.ana, "/v1/agents/?limit=0").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/agents/?order=sideways").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/agents/count").json().asInt()).isEqualTo(1);
    }

    @Test
    void withoutAValidKeyEverythingIs401AndAnotherUsersAgentIs404() {
        String id = fx.agent(fx.ana, "private");
        assertThat(fx.get(null, "/v1/agents/").status()).isEqualTo(401);
        assertThat(fx.get("engram_wrong", "/v1/agents/").status()).isEqualTo(401);
        assertThat(fx.get(null, "/v1/agents/").json().path("detail").asString()).contains("Authorization: Bearer");
        ServerFixture.Response other = fx.get(fx.ben, "/v1/agents/" + id);
        assertThat(other.status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/agents/" + id, obj("name", "mine")).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, "/v1/agents/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/agents/").json()).isEmpty();
        assertThat(fx.get(fx.ben, "/v1/agents/" + id + "/export").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/agents/" + id).json().path("name").asString()).isEqualTo("private");
        assertThat(fx.get(fx.admin, "/v1/agents/" + id).status()).isEqualTo(200);
    }

    @Test
    void anUnsupportedEndpointIs501WithABodyNamingIt() {
        ServerFixture.Response r = fx.get(fx.ana, "/v1/templates/");
        assertThat(r.status()).isEqualTo(501);
        assertThat(r.detail()).contains("GET /v1/templates/", "not supported");
        assertThat(fx.get(null, "/v1/templates/").status()).isEqualTo(401);
    }
}

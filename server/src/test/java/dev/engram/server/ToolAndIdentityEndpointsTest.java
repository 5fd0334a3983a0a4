package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class ToolAndIdentityEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir, b -> b.maxBodyBytes(4 * 1024));
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void theRuntimesToolsAreListedAndRead() {
        JsonNode tools = fx.get(fx.ana, "/v1/tools/?limit=1000").json();
        assertThat(tools).extracting(t -> t.path("name").asString()).contains("send_message", "block", "archival_memory_search");
        JsonNode send = fx.get(fx.ana, "/v1/tools/tool-send_message").json();
        assertThat(send.path("tool_type").asString()).isEqualTo("letta_core");
        assertThat(send.path("json_schema").path("parameters").path("properties").has("message")).isTrue();
        assertThat(fx.get(fx.ana, "/v1/tools/?name=block").json()).hasSize(1);
        assertThat(fx.get(fx.ana, "/v1/tools/tool-teleport").status()).isEqualTo(404);
        assertThat(fx.get(null, "/v1/tools/").status()).isEqualTo(401);
    }

    @Test
    void toolsAreAttachedAndDetached() {
        String agent = fx.agent(fx.ana, "helper");
        String base = "/v1/agents/" + agent + "/tools";
        ServerFixture.Response attached = fx.patch(fx.ana, base + "/attach/tool-archival_memory_insert", null);
        assertThat(attached.status()).as(attached.text()).isEqualTo(200);
        assertThat(fx.get(fx.ana, base + "?limit=100").json()).extracting(t -> t.path("name").asString()).contains("archival_memory_insert");
        assertThat(fx.patch(fx.ana, base + "/detach/tool-archival_memory_insert", null).status()).isEqualTo(200);
        assertThat(fx.get(fx.ana, base + "?limit=100").json()).extracting(t -> t.path("name").asString())
                .doesNotContain("archival_memory_insert");
        assertThat(fx.patch(fx.ana, base + "/attach/tool-teleport", null).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ana, base + "/detach/tool-teleport", null).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ana, base + "/approval/teleport?requires_approval=true", null).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ana, base + "/approval/block?requires_approval=maybe", null).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ben, base + "/attach/tool-block", null).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, base).status()).isEqualTo(404);
    }

    @Test
    void identitiesAreUsersAndAUsersKeySeesOnlyItsOwn() {
        ServerFixture.Response created = fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "ana", "name", "Ana Lima",
                "identity_type", "user"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        assertThat(created.json().path("id").asString()).isEqualTo("identity-ana");
        fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "ben", "name", "Ben", "identity_type", "user"));
        String agent = fx.agent(fx.ana, "helper");
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ana").json().path("agent_ids")).extracting(JsonNode::asString)
                .containsExactly(agent);
        assertThat(fx.get(fx.ana, "/v1/identities/").json()).extracting(i -> i.path("identifier_key").asString()).containsExactly("ana");
        assertThat(fx.get(fx.admin, "/v1/identities/").json()).hasSize(2);
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ben").status()).isEqualTo(404);
        assertThat(fx.post(fx.ana, "/v1/identities/", obj("identifier_key", "carol", "name", "C", "identity_type", "user")).status())
                .isEqualTo(403);
        assertThat(fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "ana", "name", "Again", "identity_type", "user")).status())
                .isEqualTo(409);
        assertThat(fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "x", "name", "X", "identity_type", "robot")).status())
                .isEqualTo(422);
        assertThat(fx.patch(fx.ana, "/v1/identities/identity-ana", obj("name", "Ana L.")).json().path("name").asString()).isEqualTo("Ana L.");

        ServerFixture.Response forBen = fx.post(fx.admin, "/v1/agents/", obj("name", "for-ben", "identity_ids", List.of("identity-ben")));
        assertThat(forBen.status()).as(forBen.text()).isEqualTo(200);
        assertThat(fx.get(fx.ben, "/v1/agents/" + forBen.json().path("id").asString()).status()).isEqualTo(200);
        assertThat(fx.post(fx.ana, "/v1/agents/", obj("name", "sneaky", "identity_ids", List.of("identity-ben"))).status()).isEqualTo(404);
        assertThat(fx.post(fx.admin, "/v1/agents/", obj("name", "ghost", "identity_ids", List.of("identity-nobody"))).status())
                .isEqualTo(404);

        assertThat(fx.delete(fx.ben, "/v1/identities/identity-ana").status()).isEqualTo(404);
        assertThat(fx.delete(fx.admin, "/v1/identities/identity-ben").status()).isEqualTo(200);
        assertThat(fx.get(fx.admin, "/v1/identities/identity-ben").status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/agents/" + forBen.json().path("id").asString()).status()).isEqualTo(200);
    }

    @Test
    void aBodyOverTheLimitIs413AndNothingIsStored() {
        String agent = fx.agent(fx.ana, "helper");
        // over the limit, and small enough to be sent whole before the server answers (a larger body races the
        // server's closing the connection)
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/archival-memory", obj("text", "x".repeat(6_000)));
        assertThat(r.status()).isEqualTo(413);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/archival-memory").json()).isEmpty();
    }

    @Test
    void noAnswerCarriesAStackTrace() {
        String agent = fx.agent(fx.ana, "helper");
        List<ServerFixture.Response> answers = List.of(fx.post(fx.ana, "/v1/agents/", "{\"name\": "),
                fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("fail")),
                fx.get(fx.ana, "/v1/agents/%00"), fx.get(fx.ana, "/v1/blocks/block-!!!"),
                fx.send(HttpRequest.newBuilder(URI.create(fx.url("/v1/agents/"))).header("Authorization", "Bearer " + fx.ana)
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("\u0000")).build()));
        for (ServerFixture.Response r : answers) {
            assertThat(r.status()).isGreaterThanOrEqualTo(400);
            assertThat(r.text()).doesNotContain("at dev.engram", "at io.helidon", "Exception:", "at java.");
        }
    }
}

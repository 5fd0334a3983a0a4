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

/** {@link RelationRoutes}: counts, a block's agents, an identity's agents and blocks, and the tags of the caller's agents. */
class RelationEndpointsTest {
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

    private static List<String> ids(JsonNode list) {
        return list.valueStream().map(n -> n.path("id").asString()).toList();
    }

    @Test
    void toolsAreCountedAsListedWithLettasFilters() {
        int listed = fx.get(fx.ana, "/v1/tools/?limit=1000").json().size();
        ServerFixture.Response all = fx.get(fx.ana, "/v1/tools/count");
        assertThat(all.status()).as(all.text()).isEqualTo(200);
        assertThat(all.json().asInt()).isEqualTo(listed).isPositive();
        assertThat(fx.get(fx.ana, "/v1/tools/count?name=send_message").json().asInt()).isEqualTo(1);
        assertThat(fx.get(fx.ana, "/v1/tools/count?names=send_message,archival_memory_search").json().asInt()).isEqualTo(2);
        assertThat(fx.get(fx.ana, "/v1/tools/count?tool_ids=tool-send_message").json().asInt()).isEqualTo(1);
        assertThat(fx.get(fx.ana, "/v1/tools/count?search=ARCHIVAL").json().asInt()).isGreaterThanOrEqualTo(2);
        int letta = fx.get(fx.ana, "/v1/tools/count?return_only_letta_tools=true").json().asInt();
        int others = fx.get(fx.ana, "/v1/tools/count?exclude_letta_tools=true").json().asInt();
        assertThat(letta + others).isEqualTo(listed);
        assertThat(fx.get(fx.ana, "/v1/tools/count?exclude_letta_tools=maybe").status()).isEqualTo(422);
        assertThat(fx.get(null, "/v1/tools/count").status()).isEqualTo(401);
    }

    @Test
    void blocksAndIdentitiesAreCountedPerCaller() {
        fx.agent(fx.ana, "helper");
        fx.post(fx.ana, "/v1/blocks/", obj("label", "policy", "value", "Be kind."));
        assertThat(fx.get(fx.ana, "/v1/blocks/count").json().asInt()).isEqualTo(fx.get(fx.ana, "/v1/blocks/?limit=1000").json().size())
                .isEqualTo(3);
        assertThat(fx.get(fx.ana, "/v1/blocks/count?label=policy").json().asInt()).isEqualTo(1);
        assertThat(fx.get(fx.ana, "/v1/blocks/count?templates_only=true").json().asInt()).isZero();
        assertThat(fx.get(fx.ben, "/v1/blocks/count").json().asInt()).isZero();
        assertThat(fx.get(fx.ana, "/v1/blocks/count?templates_only=perhaps").status()).isEqualTo(422);

        fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "ana", "name", "Ana", "identity_type", "user"));
        fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "ben", "name", "Ben", "identity_type", "user"));
        assertThat(fx.get(fx.ana, "/v1/identities/count").json().asInt()).isEqualTo(1);
        assertThat(fx.get(fx.admin, "/v1/identities/count").json().asInt()).isEqualTo(2);
    }

    @Test
    void aBlocksAgentsAreItsOwnerAndThoseItIsSharedWith() {
        String a1 = fx.agent(fx.ana, "one");
        String a2 = fx.agent(fx.ana, "two");
        fx.agent(fx.ana, "three");
        String shared = fx.post(fx.ana, "/v1/blocks/", obj("label", "policy", "value", "Be kind.")).json().path("id").asString();
        assertThat(fx.get(fx.ana, "/v1/blocks/" + shared + "/agents").json()).isEmpty();
        assertThat(fx.patch(fx.ana, "/v1/agents/" + a1 + "/core-memory/blocks/attach/" + shared, null).status()).isEqualTo(200);
        assertThat(fx.patch(fx.ana, "/v1/agents/" + a2 + "/core-memory/blocks/attach/" + shared, null).status()).isEqualTo(200);
        ServerFixture.Response agents = fx.get(fx.ana, "/v1/blocks/" + shared + "/agents?order=asc");
        assertThat(agents.status()).as(agents.text()).isEqualTo(200);
        assertThat(ids(agents.json())).containsExactly(a1, a2);
        assertThat(ids(fx.get(fx.ana, "/v1/blocks/" + shared + "/agents?order=asc&limit=1&after=" + a1).json()))
                .containsExactly(a2);
        String human = fx.get(fx.ana, "/v1/agents/" + a1 + "/core-memory/blocks/human").json().path("id").asString();
        assertThat(ids(fx.get(fx.ana, "/v1/blocks/" + human + "/agents").json())).containsExactly(a1);
        assertThat(fx.get(fx.ben, "/v1/blocks/" + shared + "/agents").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/blocks/block-nonsense/agents").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/blocks/" + shared + "/agents?order=sideways").status()).isEqualTo(422);
    }

    @Test
    void anIdentitysAgentsAndBlocksAreItsUsers() {
        fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "ana", "name", "Ana", "identity_type", "user"));
        fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "ben", "name", "Ben", "identity_type", "user"));
        String a1 = fx.agent(fx.ana, "one");
        String a2 = fx.agent(fx.ana, "two");
        fx.agent(fx.ben, "bens");
        String block = fx.post(fx.ana, "/v1/blocks/", obj("label", "policy", "value", "Be kind.")).json().path("id").asString();
        ServerFixture.Response agents = fx.get(fx.ana, "/v1/identities/identity-ana/agents");
        assertThat(agents.status()).as(agents.text()).isEqualTo(200);
        assertThat(ids(agents.json())).containsExactly(a2, a1);
        assertThat(ids(fx.get(fx.ana, "/v1/identities/identity-ana/agents?order=asc&limit=1").json())).containsExactly(a1);
        ServerFixture.Response blocks = fx.get(fx.ana, "/v1/identities/identity-ana/blocks");
        assertThat(ids(blocks.json())).containsExactly(block);
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ana").json().path("block_ids")).extracting(JsonNode::asString)
                .containsExactly(block);
        assertThat(fx.get(fx.ben, "/v1/identities/identity-ana/agents").status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/identities/identity-ana/blocks").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ben/agents").status()).isEqualTo(404);
        assertThat(ids(fx.get(fx.admin, "/v1/identities/identity-ben/agents").json())).hasSize(1);
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ana/agents?limit=0").status()).isEqualTo(422);
    }

    @Test
    void anIdentitysPropertiesAreReplacedWholeAndBadOnesChangeNothing() {
        fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "ana", "name", "Ana", "identity_type", "user"));
        String path = "/v1/identities/identity-ana/properties";
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ana").json().path("properties")).isEmpty();
        ServerFixture.Response put = fx.call("PUT", fx.ana, path, List.of(obj("key", "plan", "value", "pro", "type", "string"),
                obj("key", "seats", "value", 3, "type", "number"), obj("key", "prefs", "value", obj("tz", "UTC"), "type", "json")));
        assertThat(put.status()).as(put.text()).isEqualTo(200);
        assertThat(put.json().path("id").asString()).isEqualTo("identity-ana");
        assertThat(put.json().path("properties")).hasSize(3);
        JsonNode stored = fx.get(fx.ana, "/v1/identities/identity-ana").json().path("properties");
        assertThat(stored.path(1).path("value").asInt()).isEqualTo(3);
        assertThat(stored.path(2).path("value").path("tz").asString()).isEqualTo("UTC");

        for (Object bad : List.of(List.of(obj("key", "seats", "value", "three", "type", "number")),
                List.of(obj("key", "x", "value", "y", "type", "date")),
                List.of(obj("key", "x", "value", "y", "type", "string", "extra", 1)),
                List.of(obj("key", "x", "value", "y", "type", "string"), obj("key", "x", "value", "z", "type", "string")),
                List.of(obj("value", "y", "type", "string")), obj("key", "x"))) {
            ServerFixture.Response refused = fx.call("PUT", fx.ana, path, bad);
            assertThat(refused.status()).as(bad + ": " + refused.text()).isEqualTo(422);
        }
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ana").json().path("properties")).isEqualTo(stored);
        assertThat(fx.call("PUT", fx.ben, path, List.of()).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ana").json().path("properties")).isEqualTo(stored);
        assertThat(fx.call("PUT", fx.ana, path, List.of()).json().path("properties")).isEmpty();
        fx.patch(fx.ana, "/v1/identities/identity-ana", obj("name", "Ana L."));
        assertThat(fx.get(fx.ana, "/v1/identities/identity-ana").json().path("name").asString()).isEqualTo("Ana L.");
    }

    @Test
    void tagsAreTheCallersAgentsTagsAlphabeticallyWithCursorsAndAFilter() {
        fx.post(fx.ana, "/v1/agents/", obj("name", "one", "tags", List.of("support", "eu")));
        fx.post(fx.ana, "/v1/agents/", obj("name", "two", "tags", List.of("eu", "vip")));
        fx.post(fx.ben, "/v1/agents/", obj("name", "bens", "tags", List.of("ben-secret")));
        ServerFixture.Response tags = fx.get(fx.ana, "/v1/tags/");
        assertThat(tags.status()).as(tags.text()).isEqualTo(200);
        assertThat(tags.json()).extracting(JsonNode::asString).containsExactly("eu", "support", "vip");
        assertThat(fx.get(fx.ana, "/v1/tags?order=desc").json()).extracting(JsonNode::asString).containsExactly("vip", "support", "eu");
        assertThat(fx.get(fx.ana, "/v1/tags/?after=eu&limit=1").json()).extracting(JsonNode::asString).containsExactly("support");
        assertThat(fx.get(fx.ana, "/v1/tags/?before=vip").json()).extracting(JsonNode::asString).containsExactly("eu", "support");
        assertThat(fx.get(fx.ana, "/v1/tags/?name=UP").json()).extracting(JsonNode::asString).containsExactly("support");
        assertThat(fx.get(fx.ana, "/v1/tags/?query_text=v").json()).extracting(JsonNode::asString).containsExactly("vip");
        assertThat(fx.get(fx.ben, "/v1/tags/").json()).extracting(JsonNode::asString).containsExactly("ben-secret");
        assertThat(fx.get(fx.ana, "/v1/tags/?order_by=created_at").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/tags/?limit=x").status()).isEqualTo(422);
    }
}

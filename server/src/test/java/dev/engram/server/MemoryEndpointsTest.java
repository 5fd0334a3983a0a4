package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class MemoryEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        agent = fx.agent(fx.ana, "helper");
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void coreMemoryBlocksAreListedReadAndModified() {
        String base = "/v1/agents/" + agent + "/core-memory/blocks";
        JsonNode blocks = fx.get(fx.ana, base).json();
        assertThat(blocks).extracting(b -> b.path("label").asString()).containsExactlyInAnyOrder("human", "persona");
        assertThat(fx.get(fx.ana, base + "/human").json().path("value").asString()).isEqualTo("The user's name is unknown.");
        ServerFixture.Response r = fx.patch(fx.ana, base + "/human", obj("value", "The user is Ana.", "description", "About the user",
                "limit", 1000, "read_only", true));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("value").asString()).isEqualTo("The user is Ana.");
        assertThat(r.json().path("limit").asInt()).isEqualTo(1000);
        assertThat(r.json().path("read_only").asBoolean()).isTrue();
        assertThat(fx.store.blocks().get(Scope.of("ana", agent), "human").orElseThrow().description()).isEqualTo("About the user");
        ServerFixture.Response renamed = fx.patch(fx.ana, base + "/human", obj("label", "user"));
        assertThat(renamed.json().path("label").asString()).isEqualTo("user");
        assertThat(fx.get(fx.ana, base + "/user").json().path("value").asString()).isEqualTo("The user is Ana.");
        assertThat(fx.get(fx.ana, base + "/human").status()).isEqualTo(404);
    }

    @Test
    void aValueOverTheLimitIsRefusedAndTheBlockIsUnchanged() {
        String base = "/v1/agents/" + agent + "/core-memory/blocks";
        ServerFixture.Response r = fx.patch(fx.ana, base + "/human", obj("value", "x".repeat(2001)));
        assertThat(r.status()).isEqualTo(422);
        assertThat(r.detail()).contains("limit of 2000");
        assertThat(fx.patch(fx.ana, base + "/human", obj("limit", 5)).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, base + "/human", obj("value", 7)).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, base + "/nope", obj("value", "x")).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, base + "/human").json().path("value").asString()).isEqualTo("The user's name is unknown.");
        assertThat(fx.store.blocks().history(Scope.of("ana", agent), "human")).hasSize(1);
    }

    @Test
    void aStandaloneBlockIsCreatedAttachedSharedAndDeleted() {
        ServerFixture.Response created = fx.post(fx.ana, "/v1/blocks/", obj("label", "org", "value", "Acme, Lisbon office",
                "description", "The organisation"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String blockId = created.json().path("id").asString();
        assertThat(blockId).startsWith("block-");
        String other = fx.agent(fx.ana, "other");
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/attach/" + blockId, null).status()).isEqualTo(200);
        assertThat(fx.patch(fx.ana, "/v1/agents/" + other + "/core-memory/blocks/attach/" + blockId, null).status()).isEqualTo(200);
        fx.patch(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/org", obj("value", "Acme, Porto office"));
        assertThat(fx.get(fx.ana, "/v1/agents/" + other + "/core-memory/blocks/org").json().path("value").asString())
                .isEqualTo("Acme, Porto office");
        assertThat(fx.get(fx.ana, "/v1/blocks/" + blockId).json().path("value").asString()).isEqualTo("Acme, Porto office");
        assertThat(fx.get(fx.ana, "/v1/blocks/?label=org").json()).hasSize(1);
        assertThat(fx.get(fx.ana, "/v1/blocks/").json()).extracting(b -> b.path("label").asString())
                .contains("org", "human", "persona");
        ServerFixture.Response modified = fx.patch(fx.ana, "/v1/blocks/" + blockId, obj("value", "Acme"));
        assertThat(modified.json().path("value").asString()).isEqualTo("Acme");

        assertThat(fx.patch(fx.ana, "/v1/agents/" + other + "/core-memory/blocks/detach/" + blockId, null).status()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/agents/" + other + "/core-memory/blocks/org").status()).isEqualTo(404);
        assertThat(fx.patch(fx.ana, "/v1/agents/" + other + "/core-memory/blocks/detach/" + blockId, null).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ana, "/v1/blocks/" + blockId).status()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/blocks/" + blockId).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/org").status()).isEqualTo(404);
    }

    @Test
    void anAgentCreatedWithBlockIdsSeesTheSharedBlock() {
        String blockId = fx.post(fx.ana, "/v1/blocks/", obj("label", "team", "value", "Team Blue")).json().path("id").asString();
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "member", "block_ids", List.of(blockId)));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        assertThat(created.json().path("blocks")).extracting(b -> b.path("label").asString()).contains("team");
        assertThat(fx.post(fx.ben, "/v1/agents/", obj("name", "thief", "block_ids", List.of(blockId))).status()).isEqualTo(404);
    }

    @Test
    void badBlocksAreRefusedAndNothingIsCreated() {
        assertThat(fx.post(fx.ana, "/v1/blocks/", obj("value", "no label")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/blocks/", obj("label", "x", "value", "long", "limit", 2)).status()).isEqualTo(422);
        fx.post(fx.ana, "/v1/blocks/", obj("label", "dup", "value", "one"));
        assertThat(fx.post(fx.ana, "/v1/blocks/", obj("label", "dup", "value", "two")).status()).isEqualTo(409);
        assertThat(fx.get(fx.ana, "/v1/blocks/not-a-block").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/blocks/?label=x").json()).isEmpty();
    }

    @Test
    void passagesAreInsertedListedSearchedAndDeleted() {
        String base = "/v1/agents/" + agent + "/archival-memory";
        ServerFixture.Response created = fx.post(fx.ana, base, obj("text", "Ana's sister lives in Porto.", "tags", List.of("family")));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String id = created.json().get(0).path("id").asString();
        fx.post(fx.ana, base, obj("text", "Ana prefers green tea in the morning."));
        fx.post(fx.ana, base, obj("text", "The quarterly report is due in March."));
        JsonNode list = fx.get(fx.ana, base).json();
        assertThat(list).hasSize(3);
        assertThat(list.get(0).path("id").asString()).isEqualTo(id);
        assertThat(fx.get(fx.ana, base + "?limit=1&after=" + id).json().get(0).path("text").asString()).contains("green tea");
        assertThat(fx.get(fx.ana, base + "?search=report").json()).hasSize(1);

        JsonNode found = fx.get(fx.ana, base + "/search?query=where%20does%20her%20sister%20live&top_k=1").json();
        assertThat(found.path("count").asInt()).isEqualTo(1);
        assertThat(found.path("results").get(0).path("content").asString()).contains("Porto");
        assertThat(found.path("results").get(0).path("tags")).extracting(JsonNode::asString).containsExactly("family");
        JsonNode tagged = fx.get(fx.ana, base + "/search?query=tea&tags=family").json();
        assertThat(tagged.path("results")).allSatisfy(r -> assertThat(r.path("content").asString()).contains("Porto"));

        assertThat(fx.delete(fx.ana, base + "/" + id).status()).isEqualTo(200);
        assertThat(fx.delete(fx.ana, base + "/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, base).json()).hasSize(2);
    }

    @Test
    void passagesCarryMetadataThatSearchFiltersOnAndBadFiltersAreRefusedNamingThePart() {
        String base = "/v1/agents/" + agent + "/archival-memory";
        ServerFixture.Response created = fx.post(fx.ana, base, obj("text", "Apollo launch moved to May",
                "metadata", obj("project", "apollo", "priority", 3)));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        assertThat(created.json().get(0).path("metadata").path("project").asString()).isEqualTo("apollo");
        fx.post(fx.ana, base, obj("text", "Gemini launch moved to June", "metadata", obj("project", "gemini", "priority", 1)));
        assertThat(fx.get(fx.ana, base).json()).extracting(p -> p.path("metadata").path("priority").asInt()).containsExactly(3, 1);

        String filter = java.net.URLEncoder.encode("{\"AND\": [{\"project\": \"apollo\"}, {\"priority\": {\"gte\": 2}}]}",
                java.nio.charset.StandardCharsets.UTF_8);
        JsonNode found = fx.get(fx.ana, base + "/search?query=launch&filter=" + filter).json();
        assertThat(found.path("results")).extracting(r -> r.path("content").asString()).containsExactly("Apollo launch moved to May");
        assertThat(found.path("results").get(0).path("metadata").path("priority").asInt()).isEqualTo(3);
        assertThat(fx.get(fx.ana, base + "/search?query=launch&min_score=1000").json().path("count").asInt()).isZero();

        ServerFixture.Response bad = fx.get(fx.ana, base + "/search?query=launch&filter="
                + java.net.URLEncoder.encode("{\"priority\": {\"gtt\": 2}}", java.nio.charset.StandardCharsets.UTF_8));
        assertThat(bad.status()).isEqualTo(422);
        assertThat(bad.text()).contains("filter part 'priority.gtt' unknown operator 'gtt'");
        assertThat(fx.get(fx.ana, base + "/search?query=launch&min_score=lots").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, base + "/search?query=launch&as_of=yesterday").status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, base, obj("text", "x", "metadata", obj("created_at", 1))).status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, base).json()).hasSize(2);
    }

    @Test
    void aNotesHistoryListsItsVersionsAndSearchFindsTheCurrentOneOrTheOneThatHeldThen() {
        dev.engram.memory.Note lisbon = fx.store.notes().save("ana", "Ana lives in Lisbon");
        java.time.Instant before = fx.store.clock().instant();
        dev.engram.memory.Note porto = fx.store.notes().supersede("ana", lisbon.id(), "Ana lives in Porto",
                dev.engram.memory.Metadata.empty());
        String notes = "/v1/agents/" + agent + "/notes";
        JsonNode history = fx.get(fx.ana, notes + "/" + porto.id() + "/history").json();
        assertThat(history).extracting(n -> n.path("content").asString()).containsExactly("Ana lives in Lisbon", "Ana lives in Porto");
        assertThat(history.get(0).path("valid_to").isNull()).isFalse();
        assertThat(history.get(1).path("supersedes").asString()).isEqualTo(lisbon.id());
        assertThat(fx.get(fx.ana, notes + "/search?query=lives").json().path("results"))
                .extracting(r -> r.path("content").asString()).containsExactly("Ana lives in Porto");
        assertThat(fx.get(fx.ana, notes + "/search?query=lives&as_of=" + before).json().path("results"))
                .extracting(r -> r.path("content").asString()).containsExactly("Ana lives in Lisbon");
        assertThat(fx.get(fx.ben, notes + "/" + porto.id() + "/history").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, notes + "/note-none/history").status()).isEqualTo(404);
    }

    @Test
    void aPassageIsSupersededAndItsHistoryListsBothVersionsWhileSearchFindsTheCurrentOne() {
        String base = "/v1/agents/" + agent + "/archival-memory";
        String lisbon = fx.post(fx.ana, base, obj("text", "Ana lives in Lisbon", "tags", List.of("home"), "metadata",
                obj("source", "chat"))).json().get(0).path("id").asString();
        ServerFixture.Response moved = fx.post(fx.ana, base + "/" + lisbon + "/supersede", obj("text", "Ana lives in Porto"));
        assertThat(moved.status()).as(moved.text()).isEqualTo(200);
        String porto = moved.json().path("id").asString();
        assertThat(moved.json().path("text").asString()).isEqualTo("Ana lives in Porto");
        assertThat(moved.json().path("supersedes").asString()).isEqualTo(lisbon);
        assertThat(moved.json().path("valid_to").isNull()).isTrue();
        assertThat(moved.json().path("tags")).extracting(JsonNode::asString).as("the old passage's").containsExactly("home");
        assertThat(moved.json().path("metadata").path("source").asString()).as("the old passage's").isEqualTo("chat");

        for (String id : List.of(lisbon, porto)) {
            JsonNode history = fx.get(fx.ana, base + "/" + id + "/history").json();
            assertThat(history).extracting(n -> n.path("text").asString()).containsExactly("Ana lives in Lisbon",
                    "Ana lives in Porto");
            assertThat(history.get(0).path("valid_to").isNull()).isFalse();
            assertThat(history.get(0).path("supersedes").isNull()).isTrue();
        }
        assertThat(fx.get(fx.ana, base).json()).extracting(n -> n.path("text").asString()).containsExactly("Ana lives in Porto");
        assertThat(fx.get(fx.ana, base + "/search?query=lives").json().path("results"))
                .extracting(r -> r.path("content").asString()).containsExactly("Ana lives in Porto");

        ServerFixture.Response chosen = fx.post(fx.ana, base + "/" + porto + "/supersede", obj("text", "Ana lives in Braga",
                "tags", List.of(), "metadata", obj("source", "form")));
        assertThat(chosen.json().path("tags")).isEmpty();
        assertThat(chosen.json().path("metadata").path("source").asString()).isEqualTo("form");
    }

    @Test
    void aBadSupersedeIsRefusedAndChangesNothing() {
        String base = "/v1/agents/" + agent + "/archival-memory";
        String lisbon = fx.post(fx.ana, base, obj("text", "Ana lives in Lisbon")).json().get(0).path("id").asString();
        String porto = fx.post(fx.ana, base + "/" + lisbon + "/supersede", obj("text", "Ana lives in Porto")).json()
                .path("id").asString();

        ServerFixture.Response again = fx.post(fx.ana, base + "/" + lisbon + "/supersede", obj("text", "Ana lives in Faro"));
        assertThat(again.status()).as(again.text()).isEqualTo(409);
        assertThat(again.detail()).contains("was superseded by '" + porto + "'");
        assertThat(fx.post(fx.ana, base + "/" + porto + "/supersede", obj()).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, base + "/" + porto + "/supersede", obj("text", " ")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, base + "/" + porto + "/supersede", obj("text", "x", "metadata", obj("created_at", 1)))
                .status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, base + "/passage-none/supersede", obj("text", "x")).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, base + "/passage-none/history").status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, base + "/" + porto + "/supersede", obj("text", "x")).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, base + "/" + porto + "/history").status()).isEqualTo(404);

        assertThat(fx.get(fx.ana, base).json()).extracting(n -> n.path("text").asString()).containsExactly("Ana lives in Porto");
        assertThat(fx.get(fx.ana, base + "/" + porto + "/history").json()).hasSize(2);
    }

    @Test
    void badPassageRequestsAreRefused() {
        String base = "/v1/agents/" + agent + "/archival-memory";
        assertThat(fx.post(fx.ana, base, obj()).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, base, obj("text", " ")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, base, obj("text", "x", "tags", "notalist")).status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, base + "/search").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, base + "/search?query=x&top_k=0").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, base + "/search?query=x&start_datetime=yesterday").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, base).json()).isEmpty();
    }

    @Test
    void anotherUsersKeySeesNoneOfTheBlocksOrPassages() {
        String base = "/v1/agents/" + agent;
        fx.post(fx.ana, base + "/archival-memory", obj("text", "private fact"));
        String passage = fx.get(fx.ana, base + "/archival-memory").json().get(0).path("id").asString();
        String blockId = fx.post(fx.ana, "/v1/blocks/", obj("label", "secret", "value", "s")).json().path("id").asString();
        assertThat(fx.get(fx.ben, base + "/core-memory/blocks").status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, base + "/core-memory/blocks/human").status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, base + "/core-memory/blocks/human", obj("value", "hacked")).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, base + "/archival-memory").status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, base + "/archival-memory/search?query=fact").status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, base + "/archival-memory", obj("text", "x")).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, base + "/archival-memory/" + passage).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/blocks/" + blockId).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/blocks/" + blockId, obj("value", "hacked")).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, "/v1/blocks/" + blockId).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/blocks/").json()).isEmpty();
        String bens = fx.agent(fx.ben, "bens");
        assertThat(fx.patch(fx.ben, "/v1/agents/" + bens + "/core-memory/blocks/attach/" + blockId, null).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/blocks/" + blockId).json().path("value").asString()).isEqualTo("s");
        assertThat(fx.get(fx.ana, base + "/core-memory/blocks/human").json().path("value").asString()).doesNotContain("hacked");
    }
}

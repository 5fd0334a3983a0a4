package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code /v1/archives} and the attach and detach routes over HTTP: an archive of ana's shared by two of her agents,
 * searched through each agent's archival search with every result naming where it came from, and ben, another user,
 * who sees and changes nothing of it.
 */
class ArchiveEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String helper;
    String coach;
    String archive;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        helper = fx.agent(fx.ana, "helper");
        coach = fx.agent(fx.ana, "coach");
        ServerFixture.Response created = fx.post(fx.ana, "/v1/archives/", obj("name", "handbook", "description",
                "Company policies"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        archive = created.json().path("id").asString();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private List<String> texts(JsonNode array, String field) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.path(field).asString()));
        return out;
    }

    @Test
    void anArchiveIsCreatedListedRetrievedModifiedAndDeleted() {
        JsonNode a = fx.get(fx.ana, "/v1/archives/" + archive).json();
        assertThat(a.path("name").asString()).isEqualTo("handbook");
        assertThat(a.path("description").asString()).isEqualTo("Company policies");
        assertThat(a.path("id").asString()).startsWith("archive-");
        assertThat(a.path("vector_db_provider").asString()).isEqualTo("native");
        assertThat(a.path("organization_id").asString()).isEqualTo("engram");
        String second = fx.post(fx.ana, "/v1/archives", obj("name", "recipes")).json().path("id").asString();
        assertThat(texts(fx.get(fx.ana, "/v1/archives/").json(), "id")).containsExactly(second, archive);
        assertThat(texts(fx.get(fx.ana, "/v1/archives/?order=asc").json(), "id")).containsExactly(archive, second);
        assertThat(texts(fx.get(fx.ana, "/v1/archives/?name=recipes").json(), "id")).containsExactly(second);

        ServerFixture.Response renamed = fx.patch(fx.ana, "/v1/archives/" + archive, obj("name", "staff handbook"));
        assertThat(renamed.json().path("name").asString()).isEqualTo("staff handbook");
        assertThat(renamed.json().path("description").asString()).isEqualTo("Company policies");

        fx.post(fx.ana, "/v1/archives/" + second + "/passages", obj("text", "Soup needs salt"));
        assertThat(fx.delete(fx.ana, "/v1/archives/" + second).status()).isEqualTo(204);
        assertThat(fx.get(fx.ana, "/v1/archives/" + second).status()).isEqualTo(404);
        assertThat(fx.store.archival().list(Scope.of("ana", second), 0, 10)).isEmpty();
        assertThat(texts(fx.get(fx.ana, "/v1/archives/").json(), "id")).containsExactly(archive);
    }

    @Test
    void passagesAreAddedOneOrInABatchListedAndDeleted() {
        ServerFixture.Response one = fx.post(fx.ana, "/v1/archives/" + archive + "/passages", obj("text",
                "Holiday allowance is 25 days a year", "tags", List.of("hr"), "metadata", obj("section", "leave")));
        assertThat(one.status()).as(one.text()).isEqualTo(200);
        assertThat(one.json().path("archive_id").asString()).isEqualTo(archive);
        assertThat(one.json().path("tags").path(0).asString()).isEqualTo("hr");
        ServerFixture.Response batch = fx.post(fx.ana, "/v1/archives/" + archive + "/passages/batch", obj("passages",
                List.of(obj("text", "Expenses are filed within 30 days"), obj("text", "The office opens at nine"))));
        assertThat(batch.status()).as(batch.text()).isEqualTo(200);
        assertThat(batch.json()).hasSize(2);
        JsonNode listed = fx.get(fx.ana, "/v1/archives/" + archive + "/passages").json();
        assertThat(texts(listed, "text")).containsExactly("Holiday allowance is 25 days a year",
                "Expenses are filed within 30 days", "The office opens at nine");
        String id = one.json().path("id").asString();
        assertThat(fx.delete(fx.ana, "/v1/archives/" + archive + "/passages/" + id).status()).isEqualTo(204);
        assertThat(fx.delete(fx.ana, "/v1/archives/" + archive + "/passages/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/archives/" + archive + "/passages").json()).hasSize(2);
    }

    @Test
    void badRequestsAreRefusedAndChangeNothing() {
        assertThat(fx.post(fx.ana, "/v1/archives/", obj("description", "no name")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/archives/", obj("name", " ")).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, "/v1/archives/" + archive, obj("name", "x".repeat(201))).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/archives/" + archive + "/passages", obj("text", " ")).status()).isEqualTo(422);
        ServerFixture.Response half = fx.post(fx.ana, "/v1/archives/" + archive + "/passages/batch", obj("passages",
                List.of(obj("text", "a fine passage"), obj("text", ""))));
        assertThat(half.status()).as(half.text()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/archives/" + archive + "/passages/batch", obj()).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, "/v1/agents/" + helper + "/archives/attach/archive-none", obj()).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/archives/").json()).hasSize(1);
        assertThat(fx.get(fx.ana, "/v1/archives/" + archive).json().path("name").asString()).isEqualTo("handbook");
        assertThat(fx.get(fx.ana, "/v1/archives/" + archive + "/passages").json()).isEmpty();
        assertThat(fx.store.archives().attached(Scope.of("ana", helper))).isEmpty();
    }

    @Test
    void twoAgentsShareTheArchiveInTheirSearchAndADetachLeavesItAtOnce() {
        fx.post(fx.ana, "/v1/archives/" + archive + "/passages", obj("text", "Holiday allowance is 25 days a year"));
        fx.post(fx.ana, "/v1/agents/" + helper + "/archival-memory", obj("text", "Ana takes her holiday in May"));
        for (String agent : List.of(helper, coach)) {
            assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/archives/attach/" + archive, obj()).status()).isEqualTo(200);
        }
        assertThat(texts(fx.get(fx.ana, "/v1/archives/" + archive + "/agents").json(), "id")).containsExactlyInAnyOrder(helper,
                coach);
        assertThat(texts(fx.get(fx.ana, "/v1/archives/?agent_id=" + coach).json(), "id")).containsExactly(archive);

        JsonNode found = fx.get(fx.ana, "/v1/agents/" + helper + "/archival-memory/search?query=holiday").json().path("results");
        assertThat(texts(found, "content")).containsExactlyInAnyOrder("Holiday allowance is 25 days a year",
                "Ana takes her holiday in May");
        for (JsonNode r : found) {
            boolean shared = r.path("content").asString().startsWith("Holiday");
            assertThat(r.path("archive_id").isNull()).isEqualTo(!shared);
            if (shared) {
                assertThat(r.path("archive_id").asString()).isEqualTo(archive);
                assertThat(r.path("archive_name").asString()).isEqualTo("handbook");
            }
        }
        assertThat(texts(fx.get(fx.ana, "/v1/agents/" + coach + "/archival-memory/search?query=holiday").json()
                .path("results"), "content")).containsExactly("Holiday allowance is 25 days a year");
        // the agent's own passages stay its own
        assertThat(texts(fx.get(fx.ana, "/v1/agents/" + coach + "/archival-memory").json(), "text")).isEmpty();

        assertThat(fx.patch(fx.ana, "/v1/agents/" + helper + "/archives/detach/" + archive, obj()).status()).isEqualTo(200);
        assertThat(texts(fx.get(fx.ana, "/v1/agents/" + helper + "/archival-memory/search?query=holiday").json()
                .path("results"), "content")).containsExactly("Ana takes her holiday in May");
        assertThat(texts(fx.get(fx.ana, "/v1/archives/" + archive + "/agents").json(), "id")).containsExactly(coach);
    }

    @Test
    void anotherUsersKeySeesNothingOfTheArchiveAndChangesNothing() {
        fx.post(fx.ana, "/v1/archives/" + archive + "/passages", obj("text", "ana-secret passage"));
        fx.patch(fx.ana, "/v1/agents/" + helper + "/archives/attach/" + archive, obj());
        String bens = fx.agent(fx.ben, "bens");
        fx.post(fx.ben, "/v1/agents/" + bens + "/archival-memory", obj("text", "ben's own secret passage"));
        String base = "/v1/archives/" + archive;
        assertThat(fx.get(fx.ben, base).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, base, obj("name", "mine")).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, base + "/agents").status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, base + "/passages").status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, base + "/passages", obj("text", "ben's")).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, base + "/passages/batch", obj("passages", List.of(obj("text", "ben's")))).status())
                .isEqualTo(404);
        String passage = fx.store.archives().passages("ana", archive, 0, 1).getFirst().id();
        assertThat(fx.delete(fx.ben, base + "/passages/" + passage).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/agents/" + bens + "/archives/attach/" + archive, obj()).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/agents/" + helper + "/archives/detach/" + archive, obj()).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, base).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/archives/").json()).isEmpty();
        assertThat(fx.get(fx.ben, "/v1/archives/?agent_id=" + helper).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/agents/" + bens + "/archival-memory/search?query=secret%20passage").text())
                .contains("ben's own secret").doesNotContain("ana-secret").doesNotContain(archive);

        assertThat(fx.get(fx.ana, base).json().path("name").asString()).isEqualTo("handbook");
        assertThat(texts(fx.get(fx.ana, base + "/passages").json(), "text")).containsExactly("ana-secret passage");
        assertThat(texts(fx.get(fx.ana, base + "/agents").json(), "id")).containsExactly(helper);
        assertThat(fx.store.archives().attached(Scope.of("ben", bens))).isEmpty();
        // an admin key reaches ana's archive
        assertThat(fx.get(fx.admin, base).json().path("name").asString()).isEqualTo("handbook");
    }
}

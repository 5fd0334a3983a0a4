package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Identity;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * An identity's {@code properties}, as Letta sets them: by create and upsert (whole), by {@code PATCH} (merged by key)
 * and by {@code PUT …/properties}, each with the same check (a 422 naming the item, and nothing changed, neither the
 * properties nor the other fields sent with them). Another user's key gets 404.
 */
class IdentityPropertiesEndpointsTest {
    private static final String ID = "/v1/identities/identity-ana";

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

    private static Map<String, Object> prop(String key, Object value, String type) {
        return Map.of("key", key, "value", value, "type", type);
    }

    private Identity stored() {
        return fx.store.identities().get("ana").orElseThrow();
    }

    @Test
    void createSetsPropertiesPatchMergesThemByKeyAndUpsertReplacesThem() {
        ServerFixture.Response created = fx.post(fx.ana, "/v1/identities/", obj("identifier_key", "ana", "name", "Ana",
                "identity_type", "user", "properties", List.of(prop("plan", "free", "string"), prop("seats", 1, "number"))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        assertThat(created.json().path("properties").findValuesAsString("key")).containsExactly("plan", "seats");

        ServerFixture.Response patched = fx.patch(fx.ana, ID, obj("name", "Ana Lima", "properties",
                List.of(prop("plan", "pro", "string"), prop("beta", true, "boolean"))));
        assertThat(patched.status()).as(patched.text()).isEqualTo(200);
        JsonNode props = patched.json().path("properties");
        assertThat(props.findValuesAsString("key")).containsExactly("plan", "seats", "beta");
        assertThat(props.get(0).path("value").asString()).isEqualTo("pro");
        assertThat(props.get(1).path("value").asInt()).isEqualTo(1);
        assertThat(patched.json().path("name").asString()).isEqualTo("Ana Lima");
        assertThat(fx.get(fx.ana, ID).json().path("properties")).isEqualTo(props);

        ServerFixture.Response renamed = fx.patch(fx.ana, ID, obj("name", "Ana L."));
        assertThat(renamed.json().path("properties")).as("a PATCH without properties keeps them").isEqualTo(props);

        ServerFixture.Response upserted = fx.call("PUT", fx.ana, "/v1/identities/", obj("identifier_key", "ana", "name", "Ana",
                "identity_type", "user", "properties", List.of(prop("team", Map.of("id", 7), "json"))));
        assertThat(upserted.status()).as(upserted.text()).isEqualTo(200);
        assertThat(upserted.json().path("properties").findValuesAsString("key")).containsExactly("team");
        assertThat(stored().properties()).contains("\"team\"").doesNotContain("plan");
    }

    @Test
    void concurrentCreatesMakeOneIdentityAndConcurrentPatchesAllLand() throws Exception {
        int clients = 8;
        List<Integer> statuses;
        try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
            List<Future<Integer>> creates = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                String name = "Ana " + i;
                creates.add(pool.submit(() -> fx.post(fx.ana, "/v1/identities/", obj("identifier_key", "ana", "name", name,
                        "identity_type", "user")).status()));
            }
            statuses = new ArrayList<>();
            for (Future<Integer> f : creates) {
                statuses.add(f.get());
            }
            assertThat(statuses).as("one create wins, the others are told it exists").containsOnly(200, 409)
                    .filteredOn(s -> s == 200).hasSize(1);

            List<Future<Integer>> patches = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                String key = "k" + i;
                patches.add(pool.submit(() -> fx.patch(fx.ana, ID, obj("properties", List.of(prop(key, 1, "number"))))
                        .status()));
            }
            for (Future<Integer> f : patches) {
                assertThat(f.get()).isEqualTo(200);
            }
        }
        assertThat(fx.get(fx.ana, ID).json().path("properties").findValuesAsString("key"))
                .as("each PATCH merged into what the one before it wrote").hasSize(clients)
                .containsExactlyInAnyOrder("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7");
    }

    @Test
    void badPropertiesAreA422NamingTheItemAndChangeNothing() {
        fx.post(fx.ana, "/v1/identities/", obj("identifier_key", "ana", "name", "Ana", "identity_type", "user",
                "properties", List.of(prop("plan", "free", "string"))));
        Identity before = stored();
        List<Object> bad = List.of("not a list", List.of(prop("plan", 3, "string")), List.of(prop("a", 1, "number"),
                prop("a", 2, "number")), List.of(prop("x", 1, "date")), List.of(obj("key", "x", "value", 1, "type", "number",
                "extra", true)), List.of(obj("key", "x", "type", "string")), List.of(prop("big", "x".repeat(Identity.MAX_PROPERTIES),
                "string")));
        for (Object properties : bad) {
            ServerFixture.Response r = fx.patch(fx.ana, ID, obj("name", "Changed", "properties", properties));
            assertThat(r.status()).as(r.text()).isEqualTo(422);
            assertThat(r.json().path("detail").path(0).path("loc").path(1).asString()).as(r.text()).isEqualTo("properties");
            assertThat(stored()).isEqualTo(before);
        }
        ServerFixture.Response wrongType = fx.patch(fx.ana, ID, obj("properties", List.of(prop("plan", 3, "string"))));
        assertThat(wrongType.json().path("detail").path(0).path("loc").toString()).isEqualTo("[\"body\",\"properties\",\"0\",\"value\"]");

        ServerFixture.Response badCreate = fx.post(fx.admin, "/v1/identities/", obj("identifier_key", "acme", "name", "Acme",
                "identity_type", "org", "properties", List.of(prop("x", "y", "json"))));
        assertThat(badCreate.status()).isEqualTo(422);
        assertThat(fx.store.identities().get("acme")).isEmpty();
        ServerFixture.Response badUpsert = fx.call("PUT", fx.ana, "/v1/identities/", obj("identifier_key", "ana", "name", "Other",
                "identity_type", "user", "properties", Map.of("plan", "pro")));
        assertThat(badUpsert.status()).isEqualTo(422);
        assertThat(stored()).isEqualTo(before);
    }

    @Test
    void anotherUsersKeyGets404AndChangesNothing() {
        fx.post(fx.ana, "/v1/identities/", obj("identifier_key", "ana", "name", "Ana", "identity_type", "user",
                "properties", List.of(prop("plan", "free", "string"))));
        Identity before = stored();
        ServerFixture.Response r = fx.patch(fx.ben, ID, obj("properties", List.of(prop("plan", "stolen", "string"))));
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.text()).doesNotContain("free");
        assertThat(stored()).isEqualTo(before);
        ServerFixture.Response admin = fx.patch(fx.admin, ID, obj("properties", List.of(prop("seats", 3, "number"))));
        assertThat(admin.status()).as(admin.text()).isEqualTo(200);
        assertThat(admin.json().path("properties").findValuesAsString("key")).containsExactly("plan", "seats");
    }
}

package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Job;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.SqliteOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@link BatchRoutes}: message batches accepted at once, run in the background, listed, cancelled, never lost. */
class BatchEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private static ObjectNode request(String agent, String text) {
        return obj("agent_id", agent, "messages", List.of(obj("role", "user", "content", text)));
    }

    /** The batch once it has ended (polled: it runs in the background). */
    private JsonNode ended(String key, String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode batch = fx.get(key, "/v1/messages/batches/" + id).json();
            if (!List.of("created", "running").contains(batch.path("status").asString())) {
                return batch;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("batch " + id + " did not end within 60 s");
    }

    private static List<String> texts(JsonNode messages) {
        return messages.valueStream().filter(m -> m.path("role").asString().equals("user"))
                .map(m -> m.path("content").path(0).path("text").asString()).toList();
    }

    @Test
    void aBatchRunsEachRequestAsATurnOfItsAgentAndListsTheirMessages() throws InterruptedException {
        fx = new ServerFixture(dir);
        String a1 = fx.agent(fx.ana, "one");
        String a2 = fx.agent(fx.ana, "two");
        ServerFixture.Response created = fx.post(fx.ana, "/v1/messages/batches", obj("requests",
                List.of(request(a1, "hello one"), request(a2, "hello two"))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String id = created.json().path("id").asString();
        assertThat(id).startsWith("job-");
        assertThat(created.json().path("job_type").asString()).isEqualTo("batch");
        JsonNode batch = ended(fx.ana, id);
        assertThat(batch.path("status").asString()).as(batch.toString()).isEqualTo("completed");
        assertThat(batch.path("metadata").path("result").path("requests")).extracting(r -> r.path("status").asString())
                .containsExactly("completed", "completed");
        JsonNode messages = fx.get(fx.ana, "/v1/messages/batches/" + id + "/messages?order=asc").json().path("messages");
        assertThat(texts(messages)).containsExactly("hello one", "hello two");
        assertThat(messages.toString()).contains("You said: hello one");
        assertThat(texts(fx.get(fx.ana, "/v1/messages/batches/" + id + "/messages?agent_id=" + a2).json().path("messages")))
                .containsExactly("hello two");
        assertThat(fx.get(fx.ana, "/v1/agents/" + a1 + "/messages").text()).contains("hello one");
        assertThat(fx.get(fx.ana, "/v1/messages/batches").json()).extracting(b -> b.path("id").asString()).containsExactly(id);
        assertThat(fx.patch(fx.ana, "/v1/messages/batches/" + id + "/cancel", null).json().path("status").asString())
                .as("an ended batch stays as it ended").isEqualTo("completed");

        assertThat(fx.get(fx.ben, "/v1/messages/batches/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/messages/batches/" + id + "/messages").status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/messages/batches/" + id + "/cancel", null).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/messages/batches/").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/messages/batches/job-nope").status()).isEqualTo(404);
    }

    @Test
    void aBadRequestRefusesTheWholeBatchAndStoresNothing() {
        fx = new ServerFixture(dir);
        String a1 = fx.agent(fx.ana, "one");
        String bens = fx.agent(fx.ben, "bens");
        assertThat(fx.post(fx.ana, "/v1/messages/batches", obj()).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/messages/batches", obj("requests", List.of())).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/messages/batches", obj("requests", List.of(obj("messages", List.of())))).status())
                .isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/messages/batches", obj("requests", List.of(request(a1, "hi"), request(bens, "hi"))))
                .status()).isEqualTo(404);
        assertThat(fx.post(fx.ana, "/v1/messages/batches", obj("requests", List.of(request(a1, "hi"),
                obj("agent_id", a1, "messages", List.of(obj("role", "robot", "content", "beep")))))).status()).isEqualTo(422);
        ServerFixture.Response callback = fx.post(fx.ana, "/v1/messages/batches", obj("requests", List.of(request(a1, "hi")),
                "callback_url", "http://127.0.0.1:9/done"));
        assertThat(callback.status()).isEqualTo(422);
        assertThat(callback.text()).contains("callback_url");
        assertThat(fx.get(fx.ana, "/v1/messages/batches").json()).isEmpty();
        assertThat(fx.store.jobs().list("ana", 100)).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/agents/" + a1 + "/messages").text()).doesNotContain("\"hi\"");
    }

    @Test
    void aCancelledBatchStopsItsTurnAndRunsNoMoreRequests() throws InterruptedException {
        fx = new ServerFixture(dir);
        String a1 = fx.agent(fx.ana, "one");
        String a2 = fx.agent(fx.ana, "two");
        String id = fx.post(fx.ana, "/v1/messages/batches", obj("requests", List.of(request(a1, "sleep 30000 slowly"),
                request(a2, "never sent")))).json().path("id").asString();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!fx.get(fx.ana, "/v1/agents/" + a1 + "/messages").text().contains("sleep 30000") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        ServerFixture.Response cancelled = fx.patch(fx.ana, "/v1/messages/batches/" + id + "/cancel", null);
        assertThat(cancelled.status()).as(cancelled.text()).isEqualTo(200);
        assertThat(cancelled.json().path("status").asString()).isEqualTo("cancelled");
        assertThat(cancelled.json().path("stop_reason").asString()).isEqualTo("cancelled");
        assertThat(ended(fx.ana, id).path("status").asString()).isEqualTo("cancelled");
        Thread.sleep(1_000); // the runner would start the next request now if it did not see the cancel
        assertThat(fx.get(fx.ana, "/v1/agents/" + a2 + "/messages").text()).doesNotContain("never sent");
    }

    @Test
    void aBatchWhoseServerStoppedIsMarkedFailedWithWhatItDidAtTheNextStart() throws InterruptedException {
        // A batch a server accepted and was running when it stopped ten minutes ago: one of its two requests had finished.
        Clock past = Clock.fixed(Instant.now().minus(Duration.ofMinutes(10)), ZoneOffset.UTC);
        String id;
        try (MemoryStore before = MemoryStore.sqlite(SqliteOptions.builder(dir.resolve("memory.db")).clock(past).build())) {
            Job job = before.jobs().create("ana", BatchRunner.KIND, "{\"requests\": [{\"agent_id\": \"agent-1\"}, "
                    + "{\"agent_id\": \"agent-2\"}]}");
            before.jobs().start("ana", job.id());
            before.jobs().progress("ana", job.id(), "{\"requests\": [{\"agent_id\": \"agent-1\", \"status\": \"completed\", "
                    + "\"message_ids\": []}]}");
            id = job.id();
        }
        fx = new ServerFixture(dir);
        JsonNode batch = fx.get(fx.ana, "/v1/messages/batches/" + id).json();
        assertThat(batch.path("status").asString()).as(batch.toString()).isEqualTo("failed");
        assertThat(batch.path("metadata").path("error").asString()).contains("server stopped", "1 of 2");
        assertThat(batch.path("metadata").path("result").path("requests").path(0).path("status").asString()).isEqualTo("completed");
    }
}

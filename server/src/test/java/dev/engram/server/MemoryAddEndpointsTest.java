package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.agents.MemoryManager;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Note;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
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

/**
 * {@code POST /v1/agents/{agent_id}/memory/add} answers 202 with a job at once, the job extracts facts on the agent's
 * model and stores them; {@code /v1/jobs} shows the caller's jobs; another user gets 404; bad input a 422 and no job.
 */
class MemoryAddEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private void start(String... answers) {
        List<ScriptedChatModel.Turn> turns = java.util.Arrays.stream(answers)
                .map(a -> new ScriptedChatModel.Turn(a, List.of(), List.of())).toList();
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", ScriptedChatModel.of(turns))));
    }

    private JsonNode awaitJob(String key, String id) throws InterruptedException {
        for (int i = 0; i < 400; i++) {
            ServerFixture.Response r = fx.get(key, "/v1/jobs/" + id);
            assertThat(r.status()).as(r.text()).isEqualTo(200);
            if (!List.of("created", "running").contains(r.json().path("status").asString())) {
                return r.json();
            }
            Thread.sleep(25);
        }
        throw new AssertionError("job " + id + " did not end");
    }

    private static Object messages(String... contents) {
        return java.util.Arrays.stream(contents).map(c -> obj("role", "user", "content", c)).toList();
    }

    @Test
    void addAnswers202WithAJobThatStoresTheFactsAsTheAgentsArchivalEntries() throws Exception {
        start("{\"facts\": [\"The user moved to Porto.\"]}");
        String agent = fx.agent(fx.ana, "helper");
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/memory/add",
                obj("messages", messages("I moved to Porto last month.")));
        assertThat(r.status()).as(r.text()).isEqualTo(202);
        String id = r.json().path("id").asString();
        assertThat(id).startsWith("job-");
        assertThat(r.json().path("agent_id").asString()).isEqualTo(agent);
        JsonNode done = awaitJob(fx.ana, id);
        assertThat(done.path("status").asString()).as(done.toString()).isEqualTo("completed");
        assertThat(done.path("metadata").path("result").path("facts").get(0).path("outcome").asString()).isEqualTo("STORED");
        assertThat(fx.store.archival().list(Scope.of("ana", agent), 0, 10)).extracting(ArchivalEntry::content)
                .containsExactly("The user moved to Porto.");
        assertThat(fx.get(fx.ana, "/v1/jobs/").json()).extracting(j -> j.path("id").asString()).containsExactly(id);
        // another user sees neither the agent nor the job
        assertThat(fx.post(fx.ben, "/v1/agents/" + agent + "/memory/add", obj("messages", messages("hi"))).status())
                .isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/jobs/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/jobs/").json()).isEmpty();
    }

    @Test
    void rawMessagesCanBecomeTheUsersNotesAndAFailedExtractionIsAFailedJobWithItsError() throws Exception {
        start("not json", "still not json");
        String agent = fx.agent(fx.ana, "helper");
        ServerFixture.Response raw = fx.post(fx.ana, "/v1/agents/" + agent + "/memory/add",
                obj("messages", messages("I like green tea."), "infer", false, "store_as", "notes"));
        assertThat(awaitJob(fx.ana, raw.json().path("id").asString()).path("status").asString()).isEqualTo("completed");
        assertThat(fx.store.notes().list("ana", 0, 10)).extracting(Note::content).containsExactly("I like green tea.");

        ServerFixture.Response bad = fx.post(fx.ana, "/v1/agents/" + agent + "/memory/add", obj("messages", messages("hi")));
        JsonNode failed = awaitJob(fx.ana, bad.json().path("id").asString());
        assertThat(failed.path("status").asString()).isEqualTo("failed");
        assertThat(failed.path("metadata").path("error").asString()).contains("could not be read");
        assertThat(fx.store.archival().list(Scope.of("ana", agent), 0, 10)).isEmpty();
    }

    @Test
    void badInputIsA422AndStartsNoJob() {
        start();
        String agent = fx.agent(fx.ana, "helper");
        String path = "/v1/agents/" + agent + "/memory/add";
        assertThat(fx.post(fx.ana, path, obj("infer", true)).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("messages", List.of())).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("messages", List.of(obj("role", "boss", "content", "x")))).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("messages", "hello")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("messages", messages("hi"), "store_as", "blocks")).status()).isEqualTo(422);
        assertThat(fx.store.jobs().list("ana", 10)).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/jobs/job-00000000-0000-0000-0000-000000000000").status()).isEqualTo(404);
    }

    @Test
    void atItsStartTheServerTakesUpAJobWhoseOwnerIsGoneAndLeavesOneAProcessStillHolds() throws Exception {
        String raw = "{\"messages\": [{\"role\": \"user\", \"content\": \"I like green tea.\"}], \"raw\": true, "
                + "\"target\": \"NOTE\", \"similarity\": 0.85}";
        String abandoned;
        Clock anHourAgo = Clock.fixed(Instant.now().minus(Duration.ofHours(1)), ZoneOffset.UTC);
        try (MemoryStore store = MemoryStore.sqlite(SqliteOptions.builder(dir.resolve("memory.db")).clock(anHourAgo).build())) {
            abandoned = store.jobs().start("ana", store.jobs().create("ana", MemoryManager.KIND, raw).id()).id();
        }
        String held;
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            held = store.jobs().create("ana", MemoryManager.KIND, raw).id(); // a live process's, touched just now
        }
        start();
        assertThat(awaitJob(fx.ana, abandoned).path("status").asString()).isEqualTo("completed");
        assertThat(fx.store.notes().list("ana", 0, 10)).extracting(Note::content).containsExactly("I like green tea.");
        assertThat(fx.get(fx.ana, "/v1/jobs/" + held).json().path("status").asString()).isEqualTo("created");
    }
}

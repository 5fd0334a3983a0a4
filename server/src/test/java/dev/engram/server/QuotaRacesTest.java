package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.UserQuotas;
import dev.engram.memory.UserUsage;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quotas hold under concurrency (issue #27, item 7): the server's store checks each write inside its own transaction,
 * so requests racing each other, the tools of concurrent turns and a file of several agents never take a user past a
 * quota, and what is refused stores nothing.
 */
class QuotaRacesTest {
    private static final int RACERS = 8;

    @TempDir
    Path dir;

    private ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    /** Sends {@code request(i)} for i in 0..RACERS-1, all released at once; returns the responses in order. */
    private static List<ServerFixture.Response> atOnce(IntFunction<ServerFixture.Response> request) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ServerFixture.Response>> sent = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(RACERS)) {
            for (int i = 0; i < RACERS; i++) {
                int n = i;
                sent.add(pool.submit(() -> {
                    start.await();
                    return request.apply(n);
                }));
            }
            start.countDown();
            List<ServerFixture.Response> out = new ArrayList<>();
            for (Future<ServerFixture.Response> f : sent) {
                out.add(f.get(120, TimeUnit.SECONDS));
            }
            return out;
        }
    }

    @Test
    void agentsCreatedAtOnceNeverPassTheAgentQuotaAndTheRestAre403() throws Exception {
        fx = new ServerFixture(dir, b -> b.quotas(UserQuotas.defaults().withAgents(3)));
        List<ServerFixture.Response> answers = atOnce(i -> fx.post(fx.ana, "/v1/agents/", obj("name", "racer-" + i,
                "memory_blocks", List.of(obj("label", "human", "value", "Ana")))));

        assertThat(answers).filteredOn(r -> r.status() == 200).hasSize(3);
        assertThat(answers).filteredOn(r -> r.status() != 200).hasSize(RACERS - 3).allSatisfy(r -> {
            assertThat(r.status()).as(r.text()).isEqualTo(403);
            assertThat(r.detail()).startsWith("User 'ana' has 3 agents; this would make 4, past the quota of 3 agents per user.");
        });
        assertThat(fx.store.usage("ana").agents()).isEqualTo(3);
        assertThat(fx.store.usage("ana").blocks()).as("a refused agent's blocks are not kept").isEqualTo(3);
        assertThat(fx.get(fx.ana, "/v1/agents/").json()).hasSize(3);
    }

    @Test
    void anAgentWhoseBlocksWouldPassTheBlockQuotaIsA403AndStoresNothing() {
        fx = new ServerFixture(dir, b -> b.quotas(UserQuotas.defaults().withBlocks(3)));
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "many", "memory_blocks", List.of(
                obj("label", "a", "value", "1"), obj("label", "b", "value", "2"), obj("label", "c", "value", "3"),
                obj("label", "d", "value", "4"))));
        assertThat(r.status()).as(r.text()).isEqualTo(403);
        assertThat(r.detail()).isEqualTo("User 'ana' has 3 blocks; this would make 4, past the quota of 3 blocks per user. "
                + "Nothing was stored: delete blocks first.");
        assertThat(fx.store.usage("ana")).isEqualTo(UserUsage.NONE);
    }

    @Test
    void theToolsOfConcurrentTurnsNeverPassTheArchivalQuotaAndARefusedInsertTellsTheModel() throws Exception {
        fx = new ServerFixture(dir, b -> b.quotas(UserQuotas.defaults().withArchivalEntries(3)));
        List<String> agents = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
            ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "agent-" + i,
                    "tools", List.of("archival_memory_insert")));
            assertThat(r.status()).as(r.text()).isEqualTo(200);
            agents.add(r.json().path("id").asString());
        }
        List<ServerFixture.Response> turns = atOnce(i -> fx.post(fx.ana, "/v1/agents/" + agents.get(i) + "/messages",
                fx.userMessage("call {\"name\": \"archival_memory_insert\", \"arguments\": {\"content\": \"fact " + i + "\"}}")));

        assertThat(turns).allSatisfy(r -> assertThat(r.status()).as(r.text()).isEqualTo(200));
        assertThat(fx.store.usage("ana").archivalEntries()).isEqualTo(3);
        assertThat(turns).filteredOn(r -> r.text().contains("past the quota of 3 archival entries per user"))
                .as("each refused insert tells the model why").hasSize(RACERS - 3);
    }

    @Test
    void aFileOfSeveralAgentsThatWouldPassTheAgentQuotaStoresNothing() {
        fx = new ServerFixture(dir, b -> b.quotas(UserQuotas.defaults().withAgents(2)));
        fx.agent(fx.ana, "one");
        UserUsage before = fx.store.usage("ana");
        String file = """
                {"agents": [
                  {"name": "First", "system": "s", "block_ids": ["block-1"], "llm_config": {"model": "echo",
                   "model_endpoint_type": "openai"}},
                  {"name": "Second", "system": "s", "block_ids": ["block-2"], "llm_config": {"model": "echo",
                   "model_endpoint_type": "openai"}}],
                 "blocks": [{"id": "block-1", "label": "human", "value": "Ana"},
                            {"id": "block-2", "label": "human", "value": "Ana too"}],
                 "tools": []}""";
        ServerFixture.Response imported = upload(file);
        assertThat(imported.status()).as(imported.text()).isEqualTo(403);
        assertThat(imported.detail()).startsWith("User 'ana' has 2 agents; this would make 3, past the quota of 2 agents per user.");
        assertThat(fx.store.usage("ana")).isEqualTo(before);
        assertThat(fx.get(fx.ana, "/v1/agents/").json()).hasSize(1);
        assertThat(fx.store.agents().findByName("ana", "First")).as("the first agent of the file is not kept").isEmpty();
    }

    private ServerFixture.Response upload(String file) {
        String boundary = "----engram" + UUID.randomUUID();
        String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.af\"\r\n"
                + "Content-Type: application/json\r\n\r\n" + file + "\r\n--" + boundary + "--\r\n";
        return fx.send(HttpRequest.newBuilder(URI.create(fx.url("/v1/agents/import"))).header("Authorization", "Bearer " + fx.ana)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build());
    }
}

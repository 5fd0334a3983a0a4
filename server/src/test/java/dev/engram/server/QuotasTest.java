package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MessageQuery;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.UserQuotas;
import dev.engram.memory.UserUsage;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-user quotas and the memory limits behind the API (issue #27, item 7): each quota hit is a 403 that names the
 * quota and the usage and stores nothing; a block limit above the store's largest text and a context window above
 * the model's are refused naming the maximum.
 */
class QuotasTest {
    private static final UserQuotas SMALL = UserQuotas.defaults().withAgents(2).withBlocks(5).withArchivalEntries(2)
            .withStoredBytes(4_000);

    @TempDir
    Path dir;

    private ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private UserUsage usage() {
        return fx.store.usage("ana");
    }

    @Test
    void eachQuotaHitIsA403NamingTheQuotaAndTheUsageAndStoresNothing() {
        fx = new ServerFixture(dir, b -> b.quotas(SMALL));
        String one = fx.agent(fx.ana, "one");
        String two = fx.agent(fx.ana, "two");

        UserUsage before = usage();
        ServerFixture.Response agent = fx.post(fx.ana, "/v1/agents/", obj("name", "three"));
        assertThat(agent.status()).as(agent.text()).isEqualTo(403);
        assertThat(agent.detail()).isEqualTo("User 'ana' has 2 agents; this would make 3, past the quota of 2 agents per "
                + "user. Nothing was stored: delete an agent first.");
        assertThat(usage()).isEqualTo(before);

        assertThat(fx.post(fx.ana, "/v1/blocks/", obj("label", "notes", "value", "n")).status()).isEqualTo(200);
        before = usage();
        ServerFixture.Response block = fx.post(fx.ana, "/v1/blocks/", obj("label", "more", "value", "m"));
        assertThat(block.status()).isEqualTo(403);
        assertThat(block.detail()).startsWith("User 'ana' has 5 blocks; this would make 6, past the quota of 5 blocks per user.");
        assertThat(usage()).isEqualTo(before);

        String passages = "/v1/agents/" + one + "/archival-memory";
        assertThat(fx.post(fx.ana, passages, obj("text", "fact one")).status()).isEqualTo(200);
        assertThat(fx.post(fx.ana, passages, obj("text", "fact two")).status()).isEqualTo(200);
        before = usage();
        ServerFixture.Response passage = fx.post(fx.ana, passages, obj("text", "fact three"));
        assertThat(passage.status()).isEqualTo(403);
        assertThat(passage.detail()).startsWith("User 'ana' has 2 archival entries; this would make 3, past the quota of 2 "
                + "archival entries per user.");
        assertThat(usage()).isEqualTo(before);

        String persona = "/v1/agents/" + two + "/core-memory/blocks/persona";
        String old = fx.get(fx.ana, persona).json().path("value").asString();
        ServerFixture.Response edit = fx.patch(fx.ana, persona, obj("value", "y".repeat(3_950)));
        assertThat(edit.status()).isEqualTo(403);
        assertThat(edit.detail()).startsWith("User 'ana' stores " + before.storedBytes() + " bytes in blocks, archival "
                + "memory and notes; this would add " + (3_950 - old.length()) + ", past the quota of 4000 bytes.");
        assertThat(fx.get(fx.ana, persona).json().path("value").asString()).isEqualTo(old);
        assertThat(usage()).isEqualTo(before);

        // another user's quota is their own, and deleting makes room again
        assertThat(fx.post(fx.ben, "/v1/agents/", obj("name", "bens")).status()).isEqualTo(200);
        assertThat(fx.delete(fx.ana, "/v1/agents/" + two).status()).isEqualTo(200);
        assertThat(fx.post(fx.ana, "/v1/agents/", obj("name", "three")).status()).isEqualTo(200);
    }

    @Test
    void enablingASleeptimeCompanionAtTheAgentQuotaIsRefusedAndTheAgentIsUnchanged() {
        fx = new ServerFixture(dir, b -> b.quotas(SMALL));
        fx.agent(fx.ana, "one");
        String two = fx.agent(fx.ana, "two");
        UserUsage before = usage();
        ServerFixture.Response patch = fx.patch(fx.ana, "/v1/agents/" + two, obj("enable_sleeptime", true));
        assertThat(patch.status()).as(patch.text()).isEqualTo(403);
        assertThat(patch.detail()).contains("quota of 2 agents");
        assertThat(fx.get(fx.ana, "/v1/agents/" + two).json().path("enable_sleeptime").asBoolean(false)).isFalse();
        assertThat(usage()).isEqualTo(before);
    }

    @Test
    void anImportAtTheAgentQuotaAndATurnPastAQuotaAreRefused() {
        fx = new ServerFixture(dir, b -> b.quotas(SMALL));
        String one = fx.agent(fx.ana, "one");
        fx.agent(fx.ana, "two");
        String file = """
                {"agents": [{"name": "Imported", "system": "s", "block_ids": [], "llm_config": {"model": "echo",
                  "model_endpoint_type": "openai"}}], "blocks": [], "tools": []}""";
        ServerFixture.Response imported = upload(fx.ana, file);
        assertThat(imported.status()).as(imported.text()).isEqualTo(403);
        assertThat(imported.detail()).contains("has 2 agents").contains("past the quota of 2 agents per user");
        assertThat(usage().agents()).isEqualTo(2);

        // a user past a quota (rows written around the server's quotas, or a quota lowered since) gets no turn until
        // something goes
        Scope scope = Scope.of("ana", one);
        for (int i = 0; i < 3; i++) {
            fx.store.archival().insert(scope, NewArchivalEntry.of("stored by a tool " + i));
        }
        long messages = fx.store.messages().list(scope, MessageQuery.all()).size();
        ServerFixture.Response turn = fx.post(fx.ana, "/v1/agents/" + one + "/messages", fx.userMessage("hello"));
        assertThat(turn.status()).isEqualTo(403);
        assertThat(turn.detail()).isEqualTo("User 'ana' has 3 archival entries, past the quota of 2 per user; the message "
                + "was not sent: delete archival entries first.");
        assertThat(fx.store.messages().list(scope, MessageQuery.all())).hasSize((int) messages);
        ServerFixture.Response stream = fx.post(fx.ana, "/v1/agents/" + one + "/messages/stream", fx.userMessage("hello"));
        assertThat(stream.status()).as("a stream is refused before it starts").isEqualTo(403);
        assertThat(stream.detail()).isEqualTo(turn.detail());
        assertThat(fx.store.messages().list(scope, MessageQuery.all())).hasSize((int) messages);
    }

    @Test
    void aBlockLimitAboveTheLargestTextAndAContextWindowAboveTheModelsAreRefusedWithTheMaximum() {
        fx = new ServerFixture(dir);
        ServerFixture.Response huge = fx.post(fx.ana, "/v1/blocks/", obj("label", "huge", "value", "x".repeat(1_000_001)));
        assertThat(huge.status()).isEqualTo(400);
        assertThat(huge.detail()).isEqualTo("Block 'huge' asks for a limit of 1000001 characters; this store allows at most "
                + "1000000 per block (MemoryLimits). Nothing was stored: ask for a limit of at most 1000000.");
        ServerFixture.Response limit = fx.post(fx.ana, "/v1/blocks/", obj("label", "roomy", "value", "x", "limit", 20_000_000));
        assertThat(limit.status()).isEqualTo(400);
        assertThat(limit.detail()).contains("asks for a limit of 20000000 characters").contains("at most 1000000");
        assertThat(usage()).isEqualTo(UserUsage.NONE);

        ServerFixture.Response window = fx.post(fx.ana, "/v1/agents/", obj("name", "wide", "model", "openai/gpt-4o-mini",
                "context_window_limit", Integer.MAX_VALUE));
        assertThat(window.status()).as(window.text()).isEqualTo(422);
        assertThat(window.text()).contains("asks for a context window of 2147483647 tokens; the most openai models take is "
                + "1047576 tokens (context_window_limit at most 1047576)");
        ServerFixture.Response blockInAgent = fx.post(fx.ana, "/v1/agents/", obj("name", "big", "memory_blocks",
                List.of(obj("label", "human", "value", "x", "limit", 20_000_000))));
        assertThat(blockInAgent.status()).as(blockInAgent.text()).isEqualTo(400);
        assertThat(blockInAgent.detail()).contains("at most 1000000 per block");
        assertThat(usage()).isEqualTo(UserUsage.NONE);
    }

    private ServerFixture.Response upload(String key, String file) {
        String boundary = "----engram" + UUID.randomUUID();
        String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.af\"\r\n"
                + "Content-Type: application/json\r\n\r\n" + file + "\r\n--" + boundary + "--\r\n";
        return fx.send(HttpRequest.newBuilder(URI.create(fx.url("/v1/agents/import"))).header("Authorization", "Bearer " + key)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build());
    }
}

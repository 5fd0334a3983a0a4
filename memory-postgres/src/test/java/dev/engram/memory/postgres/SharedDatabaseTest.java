package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.QuotaExceededException;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.UserQuotas;
import dev.engram.memory.UserUsage;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two stores on one PostgreSQL database, as two instances of a server would have them, each with its own search
 * index following the shared change log: what one writes, the other finds; writes through both at once lose
 * nothing, and neither passes a user's quota with the other's writes. Skipped, with a message, when no PostgreSQL server binaries are installed.
 */
class SharedDatabaseTest {
    private static PostgresServer server;
    private static OnnxEmbedder embedder;

    @BeforeAll
    static void start() throws Exception {
        server = PostgresServer.sharedOrSkip();
        embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(1).build();
    }

    @AfterAll
    static void stop() throws Exception {
        if (embedder != null) {
            embedder.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void whatOneInstanceWritesTheOthersIndexFinds() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        Scope ana = Scope.of("ana", "helper");
        try (MemoryStore a = MemoryStore.over(PostgresBackend.open(url, "postgres", ""));
                MemoryStore b = MemoryStore.over(PostgresBackend.open(url, "postgres", ""));
                MemorySearch searchA = LuceneMemorySearch.builder(a, embedder).backgroundInterval(Duration.ofMillis(50)).build();
                MemorySearch searchB = LuceneMemorySearch.builder(b, embedder).backgroundInterval(Duration.ofMillis(50)).build()) {
            a.archival().insert(ana, NewArchivalEntry.of("Ana's sister lives in Zanzibar"));
            assertThat(searchA.search(SearchRequest.builder(ana, "zanzibar").mode(SearchMode.BM25).build())).hasSize(1);
            assertThat(awaitHits(searchB, ana, "zanzibar", 1)).extracting(SearchHit::text)
                    .containsExactly("Ana's sister lives in Zanzibar");

            b.archival().insert(ana, NewArchivalEntry.of("Ana moved to Porto last spring"));
            assertThat(awaitHits(searchA, ana, "porto", 1)).extracting(SearchHit::text).containsExactly("Ana moved to Porto last spring");
        }
    }

    @Test
    void appendsThroughTwoInstancesAtOnceLoseNothing() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        Scope ana = Scope.of("ana", "helper");
        try (MemoryStore a = MemoryStore.over(PostgresBackend.open(url, "postgres", ""));
                MemoryStore b = MemoryStore.over(PostgresBackend.open(url, "postgres", ""));
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            a.blocks().create(ana, NewBlock.builder("log").limit(100_000).build());
            List<Future<?>> writes = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                MemoryStore through = i % 2 == 0 ? a : b;
                int n = i;
                writes.add(pool.submit(() -> through.blocks().appendLine(ana, "log", "entry " + n)));
            }
            for (Future<?> w : writes) {
                w.get();
            }
            assertThat(b.blocks().get(ana, "log").orElseThrow().value().lines()).hasSize(200).doesNotHaveDuplicates();
            assertThat(a.changes().since(0, 1_000)).hasSize(201);
        }
    }

    @Test
    void twoInstancesCreatingAgentsAndInsertingEntriesAtOnceNeverPassTheUsersQuotas() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        UserQuotas quotas = UserQuotas.defaults().withAgents(4).withArchivalEntries(10);
        try (MemoryStore rawA = MemoryStore.over(PostgresBackend.open(url, "postgres", ""));
                MemoryStore rawB = MemoryStore.over(PostgresBackend.open(url, "postgres", ""));
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            MemoryStore a = rawA.withQuotas(quotas);
            MemoryStore b = rawB.withQuotas(quotas);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> writes = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                MemoryStore through = i % 2 == 0 ? a : b;
                int n = i;
                writes.add(pool.submit(() -> {
                    start.await();
                    try {
                        if (n < 16) {
                            through.agents().create(Scope.of("ana", "agent-" + n), "Agent " + n, "{}");
                        } else {
                            through.archival().insert(Scope.of("ana", "agent-0"), NewArchivalEntry.of("fact " + n));
                        }
                        return true;
                    } catch (QuotaExceededException e) {
                        return false;
                    }
                }));
            }
            start.countDown();
            long stored = 0;
            for (Future<Boolean> w : writes) {
                stored += w.get() ? 1 : 0;
            }
            UserUsage usage = rawA.usage("ana");
            assertThat(usage.agents()).isEqualTo(4);
            assertThat(usage.archivalEntries()).isEqualTo(10);
            assertThat(stored).isEqualTo(14);
        }
    }

    /** Searches (BM25: only matching entries come back) until {@code n} hits come back (the other index follows the log in the background), for at most 10 s. */
    private static List<SearchHit> awaitHits(MemorySearch search, Scope scope, String query, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<SearchHit> hits = List.of();
        while (System.nanoTime() < deadline) {
            hits = search.search(SearchRequest.builder(scope, query).mode(SearchMode.BM25).build());
            if (hits.size() >= n) {
                return hits;
            }
            Thread.sleep(20);
        }
        return hits;
    }
}

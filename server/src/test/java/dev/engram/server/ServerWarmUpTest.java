package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHealth;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EngramServer#warmUp()}: archival searches through the server's own search path, in a scope no user has, on the
 * real index and embedding model, then on the agent whose memory changed last (loaded, its prompt compiled, its archival
 * memory searched with matches); they store nothing and are not metered; a closed server's warm-up searches nothing.
 */
class ServerWarmUpTest {
    @TempDir
    Path dir;

    /** The fixture's real search, with every request it is asked recorded. */
    private static final class RecordingSearch implements MemorySearch {
        final List<SearchRequest> requests = new CopyOnWriteArrayList<>();
        final MemorySearch delegate;

        RecordingSearch(MemorySearch delegate) {
            this.delegate = delegate;
        }

        @Override
        public List<SearchHit> search(SearchRequest request) {
            requests.add(request);
            return delegate.search(request);
        }

        @Override
        public long awaitIndexed() {
            return delegate.awaitIndexed();
        }

        @Override
        public long indexedSeq() {
            return delegate.indexedSeq();
        }

        @Override
        public SearchHealth health() {
            return delegate.health();
        }

        @Override
        public void reindex(ProgressListener progress) {
            delegate.reindex(progress);
        }

        @Override
        public void close() {
        }
    }

    private RecordingSearch recorded;
    private MemoryStore store;
    private MemorySearch real;
    private EngramServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (real != null) {
            real.close();
        }
        if (store != null) {
            store.close();
        }
    }

    private void start() {
        store = MemoryStore.sqlite(dir.resolve("memory.db"));
        real = LuceneMemorySearch.builder(store, ServerFixture.sharedEmbedder()).directory(dir.resolve("index")).build();
        recorded = new RecordingSearch(real);
        server = EngramServer.builder(store, recorded).runtime(rt -> rt.model("test:echo", new EchoModel()))
                .defaultModel("test:echo").port(0).start();
    }

    private HttpResponse<String> call(String method, String key, String path, String json) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Authorization", "Bearer " + key)
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            r.header("Content-Type", "application/json");
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> searchCounts(String metrics) {
        return metrics.lines().filter(l -> l.startsWith("engram_search_seconds_count")).toList();
    }

    @Test
    void theWarmUpSearchesThroughTheServersSearchPathInAScopeNoOneHasThenOnTheNewestAgentAndStoresAndMetersNothing()
            throws Exception {
        start();
        String ana = store.keys().create(Optional.of("ana"), "ana").secret();
        String admin = store.keys().create(Optional.empty(), "admin").secret();
        String agent = ServerFixture.JSON.readTree(call("POST", ana, "/v1/agents/", "{\"name\": \"helper\"}").body())
                .path("id").asString();
        assertThat(call("POST", ana, "/v1/agents/" + agent + "/archival-memory",
                "{\"text\": \"Maya studies octopus migration off Cascais every spring with her students\"}").statusCode())
                .isEqualTo(200);
        long lastChange = store.changes().lastSeq();

        server.warmUp();

        int synthetic = EngramServer.WARM_UP_ROUNDS * EngramServer.WARM_UP_QUERIES.size();
        assertThat(recorded.requests).hasSize(synthetic + EngramServer.WARM_UP_ROUNDS);
        assertThat(recorded.requests.subList(0, synthetic)).allSatisfy(r -> {
            assertThat(r.scope()).isEqualTo(EngramServer.WARM_UP_SCOPE);
            assertThat(r.domains()).containsExactly(SearchDomain.ARCHIVAL);
        });
        assertThat(recorded.requests.subList(0, synthetic)).extracting(SearchRequest::query)
                .containsAll(EngramServer.WARM_UP_QUERIES);
        // then the agent whose memory changed last, as its first request reaches it: loaded, and searched with matches
        assertThat(recorded.requests.subList(synthetic, recorded.requests.size())).allSatisfy(r -> {
            assertThat(r.scope()).isEqualTo(Scope.of("ana", agent));
            assertThat(r.domains()).containsExactly(SearchDomain.ARCHIVAL);
            assertThat(r.query()).isEqualTo("Maya studies octopus migration off Cascais every spring");
        });
        // nothing counted, nothing stored: the metrics show no search, the change log did not move, ana's memory is as
        // it was
        assertThat(searchCounts(call("GET", admin, "/metrics", null).body())).isEmpty();
        assertThat(store.changes().lastSeq()).isEqualTo(lastChange);
        assertThat(ServerFixture.JSON.readTree(call("GET", ana, "/v1/agents/" + agent + "/archival-memory", null).body()))
                .hasSize(1);
        // the route answers through the same path, metered
        HttpResponse<String> found = call("GET", ana, "/v1/agents/" + agent + "/archival-memory/search?query=octopus", null);
        assertThat(ServerFixture.JSON.readTree(found.body()).path("count").asInt()).as(found.body()).isEqualTo(1);
        assertThat(recorded.requests).hasSize(synthetic + EngramServer.WARM_UP_ROUNDS + 1);
        assertThat(searchCounts(call("GET", admin, "/metrics", null).body())).isNotEmpty();
    }

    @Test
    void withNoAgentInTheStoreTheWarmUpSearchesOnlyTheScopeNoOneHas() {
        start();
        server.warmUp();
        assertThat(recorded.requests).hasSize(EngramServer.WARM_UP_ROUNDS * EngramServer.WARM_UP_QUERIES.size())
                .allSatisfy(r -> assertThat(r.scope()).isEqualTo(EngramServer.WARM_UP_SCOPE));
    }

    @Test
    void aClosedServersWarmUpSearchesNothing() {
        start();
        server.close();
        server.warmUp();
        assertThat(recorded.requests).isEmpty();
    }
}

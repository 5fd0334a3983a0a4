package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.lucene.LuceneMemorySearch;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EngramServer.Builder#listenAfter}: the server is built beside work that must succeed first (a store opening on
 * another thread), listens only once it ended, and, when it failed, throws its failure and never listens.
 */
class ListenAfterTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void theServerListensOnlyOnceTheWorkBeforeListeningHasSucceeded() throws Exception {
        int port = freePort();
        CompletableFuture<Void> opening = new CompletableFuture<>();
        CompletableFuture<ServerFixture> starting = CompletableFuture.supplyAsync(
                () -> new ServerFixture(dir, b -> b.port(port).listenAfter(opening)));
        Thread.sleep(500);
        assertThat(starting).as("start() waits for the work").isNotDone();
        assertThat(free(port)).as("nothing listens on %d yet", port).isTrue();
        opening.complete(null);
        fx = starting.get(60, TimeUnit.SECONDS);
        assertThat(fx.server.port()).isEqualTo(port);
        ServerFixture.Response ready = fx.get(null, "/readyz");
        assertThat(ready.status()).as(ready.text()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/agents/").status()).isEqualTo(200);
    }

    @Test
    void aFailureOfTheWorkFailsTheStartWithThatFailureAndNothingListens() throws Exception {
        int port = freePort();
        IllegalStateException failure = new IllegalStateException("Cannot open memory database /nowhere/memory.db");
        try (MemoryStore store = MemoryStore.inMemory();
                MemorySearch search = LuceneMemorySearch.builder(store, ServerFixture.sharedEmbedder()).build()) {
            EngramServer.Builder b = EngramServer.builder(store, search).port(port)
                    .listenAfter(CompletableFuture.failedFuture(failure));
            assertThatThrownBy(b::start).isSameAs(failure);
            assertThat(free(port)).as("nothing listens on %d", port).isTrue();
        }
    }

    @Test
    void aPortInUseFailsTheStartAndWhatWasBuiltIsStoppedAgain() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                MemoryStore store = MemoryStore.inMemory();
                MemorySearch search = LuceneMemorySearch.builder(store, ServerFixture.sharedEmbedder()).build()) {
            EngramServer.Builder b = EngramServer.builder(store, search).port(taken.getLocalPort());
            // Helidon logs the bind failure and returns without throwing: the server says it did not start
            assertThatThrownBy(b::start).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Cannot listen on 127.0.0.1, port " + taken.getLocalPort());
        }
    }
}

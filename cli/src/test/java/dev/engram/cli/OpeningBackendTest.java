package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.Rows;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A store whose backend opens on a thread of its own: calls wait for the open, and meet its failure unchanged. */
class OpeningBackendTest {
    @TempDir
    Path home;

    @Test
    void callsWaitForTheOpenThenRunOnTheOpenedBackend() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        OpeningBackend backend = OpeningBackend.start("a test store", () -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return MemoryStore.inMemory().backend();
        });
        MemoryStore store = MemoryStore.over(backend);
        CompletableFuture<Integer> keys = CompletableFuture.supplyAsync(() -> store.keys().list().size());
        Thread.sleep(200);
        assertThat(keys).as("the call waits for the open").isNotDone();
        assertThat(backend.toString()).isEqualTo("a test store (opening)");
        release.countDown();
        assertThat(keys.get(10, TimeUnit.SECONDS)).isZero();
        assertThat(backend.opened()).isCompleted();
        store.close();
    }

    @Test
    void everyCallAndTheStageMeetTheOpensOwnFailureAndCloseDoesNothing() {
        MemoryException failure = new MemoryException("Cannot open memory database /nowhere/memory.db: no such directory");
        OpeningBackend backend = OpeningBackend.start("a test store", () -> {
            throw failure;
        });
        MemoryStore store = MemoryStore.over(backend);
        assertThatThrownBy(() -> store.keys().list()).isSameAs(failure);
        assertThatThrownBy(() -> store.agents().get(Scope.of("ana", "helper"))).isSameAs(failure);
        assertThat(backend.opened()).isCompletedExceptionally();
        store.close(); // nothing was opened: nothing to close, no error
    }

    @Test
    void closingWhileItOpensWaitsAndClosesWhatItOpened() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean closed = new AtomicBoolean();
        MemoryBackend inner = new MemoryBackend() {
            @Override
            public <T> T write(Function<Rows, T> work) {
                throw new UnsupportedOperationException("this test never writes through the backend it opens");
            }

            @Override
            public void close() {
                closed.set(true);
            }
        };
        OpeningBackend backend = OpeningBackend.start("a test store", () -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return inner;
        });
        CompletableFuture<Void> closing = CompletableFuture.runAsync(backend::close);
        Thread.sleep(200);
        assertThat(closing).isNotDone();
        release.countDown();
        closing.get(10, TimeUnit.SECONDS);
        assertThat(closed).isTrue();
    }

    @Test
    void anEngineOpeningInTheBackgroundGivesTheSameStoreAsOneOpenedAtOnce() throws Exception {
        try (Engine engine = new Engine(home)) {
            CompletableFuture<Void> opened = engine.openStoreInBackground();
            MemoryStore store = engine.store();
            String key = store.keys().create(Optional.of("ana"), "ana").secret();
            opened.get(30, TimeUnit.SECONDS);
            assertThat(key).isNotBlank();
            assertThat(engine.openStoreInBackground()).as("open already: nothing started again").isCompleted();
            assertThat(store.toString()).contains("memory.db").doesNotContain("opening");
        }
        try (Engine again = new Engine(home)) {
            assertThat(again.store().keys().list()).hasSize(1);
        }
    }
}

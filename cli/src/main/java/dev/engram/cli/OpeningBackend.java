package dev.engram.cli;

import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.Rows;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A store's backend that opens on a thread of its own ({@code engram serve} builds its server meanwhile): every call
 * waits until the open has ended, then runs on the opened backend, or throws the open's own failure (the same
 * exception, with the same sentence, as an open on the caller's thread would have thrown). Closing waits for the open
 * too, and closes what it opened.
 */
final class OpeningBackend implements MemoryBackend {
    private final CompletableFuture<MemoryBackend> opened = new CompletableFuture<>();
    private final String what;

    private OpeningBackend(String what) {
        this.what = what;
    }

    /** Starts {@code open} on a new platform thread ({@code engram-open-store}); {@code what} names the store in words. */
    static OpeningBackend start(String what, Supplier<? extends MemoryBackend> open) {
        OpeningBackend backend = new OpeningBackend(what);
        Thread.ofPlatform().daemon().name("engram-open-store").start(() -> {
            try {
                backend.opened.complete(open.get());
            } catch (Throwable e) {
                backend.opened.completeExceptionally(e);
            }
        });
        return backend;
    }

    /** Completes once the open has ended: normally when it opened, exceptionally with its failure. */
    CompletableFuture<Void> opened() {
        return opened.thenApply(b -> null);
    }

    /** The opened backend, once the open has ended; its failure, unwrapped, when it failed. */
    private MemoryBackend backend() {
        try {
            return opened.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    @Override
    public <T> T write(Function<Rows, T> work) {
        return backend().write(work);
    }

    @Override
    public <T> T writeUnit(Function<Rows, T> work) {
        return backend().writeUnit(work);
    }

    @Override
    public boolean savepoints() {
        return backend().savepoints();
    }

    @Override
    public <T> T read(Function<Rows, T> work) {
        return backend().read(work);
    }

    /** Waits for the open to end; closes the backend it opened (a failed open left nothing open). */
    @Override
    public void close() {
        MemoryBackend b;
        try {
            b = opened.join();
        } catch (CompletionException e) {
            return;
        }
        b.close();
    }

    @Override
    public String toString() {
        return opened.isDone() && !opened.isCompletedExceptionally() ? opened.join().toString() : what + " (opening)";
    }
}

package dev.engram.framework;

import java.util.ArrayList;
import java.util.List;

/**
 * A one-way cancellation signal shared between whoever drives an agent (a REPL's Ctrl-C, a server
 * request) and the tool calls running for it. Cancelling interrupts the tools that are running and
 * makes the calls that have not started return {@link ToolStatus#CANCELLED}.
 *
 * <p>Thread-safe. Listeners registered after cancellation run at once.
 */
public final class CancellationToken {
    private final List<Runnable> listeners = new ArrayList<>();
    private boolean cancelled;

    private CancellationToken() {
    }

    /** A fresh token that is not cancelled. */
    public static CancellationToken create() {
        return new CancellationToken();
    }

    /** Cancels; idempotent. Listeners run on the calling thread. */
    public void cancel() {
        List<Runnable> toRun;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            toRun = List.copyOf(listeners);
            listeners.clear();
        }
        toRun.forEach(Runnable::run);
    }

    public synchronized boolean isCancelled() {
        return cancelled;
    }

    /**
     * Runs {@code listener} when the token is cancelled (at once if it already is).
     *
     * @return a handle that removes the listener; call it when the work it guards is over
     */
    public Runnable onCancel(Runnable listener) {
        synchronized (this) {
            if (!cancelled) {
                listeners.add(listener);
                return () -> {
                    synchronized (this) {
                        listeners.remove(listener);
                    }
                };
            }
        }
        listener.run();
        return () -> { };
    }
}

package dev.engram.cli;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import sun.misc.Signal;

/**
 * Stops a long-running command in order on SIGTERM, SIGINT (Ctrl-C) or SIGHUP, before the JVM begins to exit.
 *
 * <p>Left to the JVM, those signals run every shutdown hook at once, and libraries register their own: ONNX Runtime
 * releases its native environment in one while the embedding model may still be loading on another thread (a crash
 * in native code), and a model first opened during the exit fails with "Shutdown in progress". Here the command's own
 * stop runs first, on the signal's thread, while the JVM is whole; the command then returns the exit status the
 * signal means (128 + its number, as the JVM's own handling gives).
 */
final class StopSignals {
    private static final List<String> NAMES = List.of("TERM", "INT", "HUP");

    private final AtomicInteger received = new AtomicInteger();

    private StopSignals() {
    }

    /**
     * Runs {@code stop} (once) on the first of those signals; later ones are ignored while it runs. Signals this
     * platform does not have (SIGHUP on Windows) are left as they are.
     */
    static StopSignals install(Runnable stop) {
        StopSignals signals = new StopSignals();
        for (String name : NAMES) {
            try {
                Signal.handle(new Signal(name), signal -> {
                    if (signals.received.compareAndSet(0, signal.getNumber())) {
                        stop.run();
                    }
                });
            } catch (IllegalArgumentException e) {
                // not a signal here, or one the JVM keeps for itself (-Xrs): its default stays
            }
        }
        return signals;
    }

    /** The exit status for the signal that stopped the command (128 + its number), or 0 when none did. */
    int exitStatus() {
        int n = received.get();
        return n == 0 ? 0 : 128 + n;
    }
}

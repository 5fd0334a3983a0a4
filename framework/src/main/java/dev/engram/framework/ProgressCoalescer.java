package dev.engram.framework;

import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ToolProgress} a call reports to when its context has a {@link ToolProgressListener}: it gathers reports
 * and passes them on at most once per interval, keeping the last {@link ToolProgressListener#MAX_CHUNK_CHARS}
 * characters of what came in between. The pipeline flushes it while it waits for the call and closes it when the call
 * is done (a last flush; later reports are dropped).
 */
final class ProgressCoalescer implements ToolProgress {
    private static final Logger LOG = LoggerFactory.getLogger(ProgressCoalescer.class);

    private final ToolCall call;
    private final ToolProgressListener listener;
    private final long intervalNanos;
    private final LongSupplier clock;
    private final int maxChars;
    private final StringBuilder pending = new StringBuilder();
    private long skipped;
    private long lastSent;
    private boolean closed;

    ProgressCoalescer(ToolCall call, ToolProgressListener listener, long intervalNanos, LongSupplier clock, int maxChars) {
        this.call = call;
        this.listener = listener;
        this.intervalNanos = intervalNanos;
        this.clock = clock;
        this.maxChars = maxChars;
        this.lastSent = clock.getAsLong();
    }

    long intervalNanos() {
        return intervalNanos;
    }

    @Override
    public synchronized void report(String chunk) {
        if (closed || chunk == null || chunk.isEmpty()) {
            return;
        }
        pending.append(chunk);
        if (pending.length() > maxChars) {
            int drop = pending.length() - maxChars;
            if (Character.isLowSurrogate(pending.charAt(drop))) {
                drop++; // not half a character
            }
            skipped += drop;
            pending.delete(0, drop);
        }
        flushIfDue();
    }

    /** Passes on what was reported when the interval since the last report has passed. */
    synchronized void flushIfDue() {
        if (!closed && !pending.isEmpty() && clock.getAsLong() - lastSent >= intervalNanos) {
            send();
        }
    }

    /** Passes on what is left; later reports are dropped. */
    synchronized void close() {
        if (!closed && !pending.isEmpty()) {
            send();
        }
        closed = true;
    }

    private void send() {
        String text = skipped > 0 ? "[... " + skipped + " characters skipped]\n" + pending : pending.toString();
        pending.setLength(0);
        skipped = 0;
        lastSent = clock.getAsLong();
        try {
            listener.onProgress(call, text);
        } catch (RuntimeException e) {
            LOG.warn("The progress listener failed on call {} to '{}'; the report was dropped", call.id(), call.name(), e);
        }
    }
}

package dev.engram.framework.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A response body read against a deadline and a size cap: a read that would wait past the deadline, or
 * a body larger than the cap, cancels the exchange and fails. A per-read timeout would not do: a
 * server that trickles a byte a second never lets one expire.
 */
final class BoundedBody extends InputStream implements Flow.Subscriber<List<ByteBuffer>> {
    /** The body did not arrive whole before its deadline. */
    static final class DeadlineExceeded extends IOException {
        private static final long serialVersionUID = 1L;

        DeadlineExceeded() {
            super("the answer was not complete before the deadline");
        }
    }

    /** The body is larger than the cap. */
    static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge(long cap) {
            super("the answer is larger than " + cap + " bytes");
        }
    }

    private static final Object END = new Object();

    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final long deadlineNanos;
    private final long maxBytes;
    private volatile Flow.Subscription subscription;
    private volatile boolean cancelled;
    private Iterator<ByteBuffer> buffers = List.<ByteBuffer>of().iterator();
    private ByteBuffer current;
    private long total;
    private boolean done;

    /** A body that must be read whole before {@code deadlineNanos} (of {@link System#nanoTime()}), at most {@code maxBytes}. */
    BoundedBody(long deadlineNanos, long maxBytes) {
        this.deadlineNanos = deadlineNanos;
        this.maxBytes = maxBytes;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (cancelled) {
            s.cancel();
        } else {
            s.request(1);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        queue.add(item);
    }

    @Override
    public void onError(Throwable t) {
        queue.add(t);
    }

    @Override
    public void onComplete() {
        queue.add(END);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (current == null || !current.hasRemaining()) {
            if (buffers.hasNext()) {
                current = buffers.next();
                continue;
            }
            if (done) {
                return -1;
            }
            next();
        }
        int n = Math.min(len, current.remaining());
        current.get(b, off, n);
        return n;
    }

    @SuppressWarnings("unchecked")
    private void next() throws IOException {
        Object item;
        try {
            long left = deadlineNanos - System.nanoTime();
            item = left <= 0 ? queue.poll() : queue.poll(left, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancel();
            throw new InterruptedIOException("interrupted while reading the answer");
        }
        if (item == null) {
            cancel();
            throw new DeadlineExceeded();
        }
        if (item == END) {
            done = true;
            return;
        }
        if (item instanceof Throwable t) {
            done = true;
            throw t instanceof IOException io ? io : new IOException(t.getMessage(), t);
        }
        List<ByteBuffer> list = (List<ByteBuffer>) item;
        for (ByteBuffer buffer : list) {
            total += buffer.remaining();
        }
        if (total > maxBytes) {
            cancel();
            throw new TooLarge(maxBytes);
        }
        buffers = list.iterator();
        Flow.Subscription s = subscription;
        if (s != null) {
            s.request(1);
        }
    }

    private void cancel() {
        done = true;
        cancelled = true;
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    @Override
    public void close() {
        if (!done) {
            cancel();
        }
    }
}

package dev.engram.cli;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * Counts the JSON-RPC requests read from an MCP client and the responses written back, one message a
 * line as MCP's stdio transport frames them, so that the end of the client's input is passed on only
 * when every request read has been answered (or after {@code drain}): a client that sends a call and
 * closes its side at once still gets the answer, and a call in flight is never cut off.
 */
final class InFlightRequests {
    private final AtomicInteger pending = new AtomicInteger();
    private final Duration drain;

    InFlightRequests(Duration drain) {
        this.drain = drain;
    }

    int pending() {
        return pending.get();
    }

    /** The client's input: requests are counted, and its end waits for their answers. */
    InputStream input(InputStream in, Runnable onEnd) {
        LineSplitter lines = new LineSplitter(line -> {
            JsonNode n = parse(line);
            if (n != null && n.has("method") && n.hasNonNull("id")) {
                pending.incrementAndGet();
            }
        });
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] buf, int off, int len) throws IOException {
                int n = super.read(buf, off, len);
                if (n < 0) {
                    awaitAnswers();
                    onEnd.run();
                    return -1;
                }
                lines.accept(buf, off, n);
                return n;
            }
        };
    }

    /** The server's output: each response written answers one request. */
    OutputStream output(OutputStream out) {
        LineSplitter lines = new LineSplitter(line -> {
            JsonNode n = parse(line);
            if (n != null && !n.has("method") && n.hasNonNull("id") && (n.has("result") || n.has("error"))) {
                pending.decrementAndGet();
            }
        });
        return new FilterOutputStream(out) {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] buf, int off, int len) throws IOException {
                out.write(buf, off, len);
                out.flush();
                lines.accept(buf, off, len);
            }
        };
    }

    private void awaitAnswers() {
        long deadline = System.nanoTime() + drain.toNanos();
        try {
            // A request read just before the end may not have reached its handler yet: give it a moment.
            Thread.sleep(50);
            while (pending.get() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static JsonNode parse(String line) {
        try {
            return line.isBlank() ? null : Json.MAPPER.readTree(line);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Splits a byte stream into UTF-8 lines. */
    private static final class LineSplitter {
        private final java.util.function.Consumer<String> onLine;
        private final java.io.ByteArrayOutputStream current = new java.io.ByteArrayOutputStream();

        LineSplitter(java.util.function.Consumer<String> onLine) {
            this.onLine = onLine;
        }

        synchronized void accept(byte[] buf, int off, int len) {
            for (int i = off; i < off + len; i++) {
                if (buf[i] == '\n') {
                    onLine.accept(current.toString(StandardCharsets.UTF_8));
                    current.reset();
                } else {
                    current.write(buf[i]);
                }
            }
        }
    }
}

package dev.engram.cli;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;

/**
 * Counts the JSON-RPC requests read from an MCP client ({@link McpLineGuard} reports each one it passes
 * on) and the responses written back, one message a line as MCP's stdio transport frames them, so that
 * the end of the client's input is passed on only when every request read has been answered (or after
 * {@code drain}): a client that sends a call and closes its side at once still gets the answer, and a
 * call in flight is never cut off.
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

    /** A request was read from the client and passed on: its answer is now due. */
    void requestRead() {
        pending.incrementAndGet();
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

    /** Waits until every request read has been answered, or the drain time has passed. */
    void awaitAnswers() {
        long deadline = System.nanoTime() + drain.toNanos();
        try {
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

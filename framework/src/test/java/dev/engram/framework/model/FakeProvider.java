package dev.engram.framework.model;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/** A local HTTP server that records requests and replays scripted provider answers, on loopback only. */
final class FakeProvider implements AutoCloseable {
    /** A request as the server received it. */
    record Received(String method, String path, Map<String, List<String>> headers, String body) {
        JsonNode json() {
            return ModelJson.MAPPER.readTree(body);
        }

        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).findFirst()
                    .map(e -> e.getValue().get(0)).orElse(null);
        }
    }

    /** A scripted answer: status, headers, body chunks (sent with a flush and a pause between), and a hang. */
    record Answer(int status, Map<String, String> headers, List<String> chunks, long pauseMillis, boolean hangAfter) {
        static Answer json(String body) {
            return new Answer(200, Map.of("Content-Type", "application/json"), List.of(body), 0, false);
        }

        static Answer status(int status, String body, Map<String, String> headers) {
            return new Answer(status, headers, List.of(body), 0, false);
        }

        static Answer sse(List<String> events) {
            return new Answer(200, Map.of("Content-Type", "text/event-stream"), events, 5, false);
        }

        static Answer hanging(List<String> chunks) {
            return new Answer(200, Map.of("Content-Type", "text/event-stream"), chunks, 0, true);
        }
    }

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    final List<Received> received = Collections.synchronizedList(new ArrayList<>());
    private final CountDownLatch release = new CountDownLatch(1);

    FakeProvider() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /**
     * The model of {@code spec} (keys from {@code env}), pointed at this server (unless the spec is an
     * http URL already), with retries fast enough for tests.
     */
    ChatModel model(String spec, Map<String, String> env) {
        ModelSpec parsed = ModelSpec.parse(spec, env);
        if (!spec.startsWith("http")) {
            parsed = parsed.withBaseUrl(base());
        }
        return ChatModel.of(parsed.withRetry(new RetryPolicy(3, java.time.Duration.ofMillis(10), java.time.Duration.ofMillis(50))));
    }

    FakeProvider answer(Answer a) {
        answers.add(a);
        return this;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
                Map.copyOf(exchange.getRequestHeaders()), body));
        Answer a = answers.poll();
        if (a == null) {
            a = Answer.status(500, "{\"error\":{\"message\":\"no scripted answer\"}}", Map.of());
        }
        a.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
        boolean stream = a.chunks().size() > 1 || a.hangAfter();
        exchange.sendResponseHeaders(a.status(), stream ? 0 : a.chunks().get(0).getBytes(StandardCharsets.UTF_8).length);
        try (OutputStream out = exchange.getResponseBody()) {
            for (String chunk : a.chunks()) {
                out.write(chunk.getBytes(StandardCharsets.UTF_8));
                out.flush();
                if (a.pauseMillis() > 0) {
                    Thread.sleep(a.pauseMillis());
                }
            }
            if (a.hangAfter()) {
                release.await(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away (cancellation tests)
        }
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
    }

    /**
     * Runs {@code call} on another (platform) thread, interrupts that thread after {@code afterMillis},
     * and returns what the call threw (null if it returned); fails if the thread is still alive 5 s later.
     */
    static Throwable interruptDuring(Runnable call, long afterMillis) throws InterruptedException {
        return interruptDuring(call, afterMillis, Thread.ofPlatform());
    }

    /** As {@link #interruptDuring(Runnable, long)}, on a thread of the given kind (virtual or platform). */
    static Throwable interruptDuring(Runnable call, long afterMillis, Thread.Builder kind) throws InterruptedException {
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        Thread caller = kind.start(() -> {
            try {
                call.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        Thread.sleep(afterMillis);
        caller.interrupt();
        caller.join(5_000);
        if (caller.isAlive()) {
            throw new AssertionError("the call did not stop within 5 s of the interrupt");
        }
        return failure.get();
    }

    static String sseData(String json) {
        return "data: " + json + "\n\n";
    }
}

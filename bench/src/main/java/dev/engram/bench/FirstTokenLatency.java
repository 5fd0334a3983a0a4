package dev.engram.bench;

import com.sun.net.httpserver.HttpServer;
import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentRuntime;
import dev.engram.agents.AgentStreamEvent;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.StreamListener;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.lucene.LuceneMemorySearch;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

/**
 * How long the first token of a streamed answer takes to reach an {@link Agent#stream} listener after
 * the model's first chunk arrives, p50/p90/p99 over 2,000 turns (after 300 untimed ones):
 * <ul>
 *   <li><b>in-process</b>: from a model's call of {@code onText} with its first fragment to the
 *       listener's {@code Text} event: what the agent loop adds;</li>
 *   <li><b>http</b>: from an OpenAI-compatible server on loopback writing its first SSE chunk to the
 *       same event, through the real adapter: loopback TCP, the HTTP client, SSE and JSON parsing, and
 *       the agent loop.</li>
 * </ul>
 * Each turn is one plain-text answer (no tools) on an agent over a real SQLite store and Lucene index.
 * Run: {@code $JAVA -cp bench/target/benchmarks.jar dev.engram.bench.FirstTokenLatency [--turns N]}.
 */
public final class FirstTokenLatency {
    private static final int WARMUP = 300;

    private FirstTokenLatency() {
    }

    /** When the model's first chunk arrived, set by whichever side produces it. */
    private static volatile long firstChunkAt;

    /** Answers "Hello there" in three fragments, noting when the first one is handed over. */
    static final class InProcessModel implements ChatModel {
        @Override
        public String name() {
            return "in-process";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            return new ChatResponse(ChatMessage.Assistant.text("Hello there"), ChatResponse.Usage.NONE,
                    ChatResponse.StopReason.END_TURN);
        }

        @Override
        public ChatResponse stream(ChatRequest request, StreamListener listener) {
            firstChunkAt = System.nanoTime();
            listener.onText("Hel");
            listener.onText("lo ");
            listener.onText("there");
            return chat(request);
        }
    }

    public static void main(String[] args) throws Exception {
        int turns = args.length == 2 && args[0].equals("--turns") ? Integer.parseInt(args[1]) : 2_000;
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/v1/chat/completions", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                firstChunkAt = System.nanoTime();
                write(out, "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}");
                write(out, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo there\"},\"finish_reason\":\"stop\"}]}");
                write(out, "[DONE]");
            }
        });
        server.start();
        Path dir = Files.createTempDirectory("engram-first-token");
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
                Embedder embedder = Embedder.onnxDefault();
                MemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                        .backgroundInterval(Duration.ZERO).build();
                AgentRuntime runtime = AgentRuntime.builder(store, search).model("bench:in-process", new InProcessModel())
                        .modelResolver(spec -> ChatModel.of(spec, Map.of())).build()) {
            String http = "http://127.0.0.1:" + server.getAddress().getPort() + "/v1#bench";
            System.out.printf(Locale.ROOT, "first token to listener, %d turns after %d untimed (microseconds)%n", turns, WARMUP);
            for (String spec : List.of("bench:in-process", http)) {
                Agent agent = runtime.create(AgentDefinition.builder("bench").name(spec.startsWith("http") ? "http" : "in-process")
                        .model(spec).contextWindowTokens(200_000).build());
                long[] nanos = measure(agent, turns);
                System.out.printf(Locale.ROOT, "%-11s p50 %8.2f  p90 %8.2f  p99 %8.2f%n", agent.name(),
                        percentile(nanos, 0.50), percentile(nanos, 0.90), percentile(nanos, 0.99));
            }
        } finally {
            server.stop(0);
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static long[] measure(Agent agent, int turns) {
        long[] latency = new long[turns];
        long[] firstEventAt = new long[1];
        for (int i = -WARMUP; i < turns; i++) {
            firstEventAt[0] = 0;
            agent.stream("s" + Math.floorMod(i, 50), "Say hello (" + i + ")", event -> {
                if (event instanceof AgentStreamEvent.Text && firstEventAt[0] == 0) {
                    firstEventAt[0] = System.nanoTime();
                }
            });
            if (i >= 0) {
                latency[i] = firstEventAt[0] - firstChunkAt;
            }
        }
        return latency;
    }

    private static void write(OutputStream out, String json) throws IOException {
        out.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static double percentile(long[] values, double p) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.round(p * (sorted.length - 1)))] / 1_000.0;
    }
}

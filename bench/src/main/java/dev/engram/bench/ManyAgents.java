package dev.engram.bench;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentRuntime;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.server.EngramServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;

/**
 * A server of many agents (issue 34 item 6): what grows with the number of agents and users. Two stores are built once
 * through the library ({@code --build}): {@code many}, N agents of U users (each with its two blocks and a few messages
 * sent through the instant model), and {@code few}, 10 agents of 1 user, the baseline. Then ({@code --run}), for each
 * store in turn, a server over it is started as a child JVM with the given {@code -Xmx} (the server
 * {@code engram serve} builds: SQLite store, Lucene index, an instant model as in {@link ServerLoad}; background
 * indexing off), and C concurrent clients, each on a kept-alive connection, send messages in a closed loop for the
 * duration (after a warm-up of the same load, not counted), each to an agent drawn at random with its user's key. Reported per store: the time from starting the JVM
 * to {@code /readyz} answering 200 (and the server's own part of it), heap used after a full GC and live threads once
 * ready and after the load, the heap once every agent of the store was asked for (its prompt compiled, as its next
 * message would: what many agents cost the server within its bound on loaded agents), messages/s and p50/p99, errors, and every acknowledged message found stored.
 *
 * <pre>
 * java -Xmx4g -cp bench/target/benchmarks.jar dev.engram.bench.ManyAgents --build --work DIR [--agents 10000] [--users 1000]
 *      [--messages 3]
 * java -cp bench/target/benchmarks.jar dev.engram.bench.ManyAgents --run --work DIR [--clients 100] [--seconds 30]
 *      [--warmup 10] [--xmx 1g] [--rounds 1] [--java PATH] [--max-loaded 1000[,20000]]
 * </pre>
 *
 * {@code --max-loaded} is the server runtime's bound on loaded agents ({@code AgentRuntime.Builder.maxLoadedAgents}),
 * one run of the large store per value given (a value above the number of agents keeps every agent loaded, as the
 * runtime did before it had a bound).
 * {@code bench/many-agents.sh} runs both.
 */
public final class ManyAgents {
    /** The baseline store's size: the limit beside the large one. */
    static final int FEW_AGENTS = 10;
    private static final int DEFAULT_MAX_LOADED = AgentRuntime.Builder.DEFAULT_MAX_LOADED_AGENTS;

    private ManyAgents() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = options(args);
        if (a.containsKey("serve")) {
            serve(Path.of(a.get("serve")), Integer.parseInt(a.getOrDefault("max-loaded", String.valueOf(DEFAULT_MAX_LOADED))));
            return;
        }
        Path work = Path.of(required(a, "work"));
        if (a.containsKey("build")) {
            int agents = Integer.parseInt(a.getOrDefault("agents", "10000"));
            int users = Integer.parseInt(a.getOrDefault("users", "1000"));
            int messages = Integer.parseInt(a.getOrDefault("messages", "3"));
            if (agents < users || users < 1 || messages < 0) {
                throw new IllegalArgumentException("need agents >= users >= 1 and messages >= 0");
            }
            build(work.resolve("few"), FEW_AGENTS, 1, messages);
            build(work.resolve("many"), agents, users, messages);
        }
        if (a.containsKey("run")) {
            run(work, Integer.parseInt(a.getOrDefault("clients", "100")), Integer.parseInt(a.getOrDefault("seconds", "30")),
                    Integer.parseInt(a.getOrDefault("warmup", "10")),
                    a.getOrDefault("xmx", "1g"), Integer.parseInt(a.getOrDefault("rounds", "1")),
                    a.getOrDefault("java", Path.of(System.getProperty("java.home"), "bin", "java").toString()),
                    java.util.Arrays.stream(a.getOrDefault("max-loaded", String.valueOf(DEFAULT_MAX_LOADED)).split(","))
                            .map(Integer::parseInt).toList());
        }
        if (!a.containsKey("build") && !a.containsKey("run")) {
            throw new IllegalArgumentException("say --build, --run or both (with --work DIR)");
        }
    }

    /** {@code --name value} pairs; {@code --build} and {@code --run} take none. */
    private static Map<String, String> options(String[] args) {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + args[i]);
            }
            String name = args[i].substring(2);
            if (name.equals("build") || name.equals("run")) {
                a.put(name, "");
            } else if (i + 1 < args.length) {
                a.put(name, args[++i]);
            } else {
                throw new IllegalArgumentException("--" + name + " takes a value");
            }
        }
        return a;
    }

    private static String required(Map<String, String> a, String name) {
        String v = a.get(name);
        if (v == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }

    static String user(int u) {
        return "user" + u;
    }

    static String agent(int i) {
        return "agent-" + i;
    }

    /** The agents of a built store: agent i belongs to user i % users. */
    record Layout(int agents, int users, List<String> keys) {
        static Layout read(Path dir) throws IOException {
            Properties p = new Properties();
            try (var in = Files.newBufferedReader(dir.resolve("layout.properties"))) {
                p.load(in);
            }
            return new Layout(Integer.parseInt(p.getProperty("agents")), Integer.parseInt(p.getProperty("users")),
                    Files.readAllLines(dir.resolve("keys.txt")));
        }

        Scope scope(int i) {
            return Scope.of(user(i % users), agent(i));
        }
    }

    /** Creates the store in {@code dir} through the library: agents, their blocks, their first messages, a key per user. */
    private static void build(Path dir, int agents, int users, int messages) throws IOException {
        if (Files.exists(dir.resolve("layout.properties"))) {
            System.out.println("# " + dir + " is built already: kept");
            return;
        }
        Files.createDirectories(dir);
        long t0 = System.nanoTime();
        try (Embedder embedder = Embedder.onnxDefault(); MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
                LuceneMemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                        .backgroundInterval(Duration.ZERO).build();
                AgentRuntime runtime = AgentRuntime.builder(store, search).model("bench:instant", new ServerLoad.InstantModel()).build()) {
            List<String> keys = new ArrayList<>();
            for (int u = 0; u < users; u++) {
                keys.add(store.keys().create(Optional.of(user(u)), "many-agents").secret());
            }
            for (int i = 0; i < agents; i++) {
                int u = i % users;
                Agent agent = runtime.create(AgentDefinition.builder(user(u)).id(agent(i)).name("agent " + i).model("bench:instant")
                        .contextWindowTokens(ServerLoad.CONTEXT_WINDOW)
                        .block("human", "What the agent knows of its user.", "Facts about user " + u + ". ".repeat(20))
                        .block("persona", "Who the agent is.", "A patient assistant. ".repeat(20)).build());
                for (int m = 0; m < messages; m++) {
                    agent.send("first message " + m + " to agent " + i);
                }
                if ((i + 1) % 1000 == 0) {
                    System.out.printf(Locale.ROOT, "# %s: %d agents in %.0f s%n", dir.getFileName(), i + 1, (System.nanoTime() - t0) / 1e9);
                }
            }
            Files.write(dir.resolve("keys.txt"), keys);
        }
        Files.writeString(dir.resolve("layout.properties"), "agents=" + agents + "\nusers=" + users + "\nmessages=" + messages + "\n");
        System.out.printf(Locale.ROOT, "# built %s: %d agents of %d users, %d messages each, in %.0f s, %.1f MB on disk%n", dir, agents,
                users, messages, (System.nanoTime() - t0) / 1e9, BenchData.bytesOnDisk(dir) / 1e6);
    }

    /**
     * The child: a server over the store in {@code dir}, as {@code engram serve} builds one, on a free port. Prints
     * {@code port N}, then {@code started MS} (from this JVM's start to listening), then answers each {@code stats} line
     * on its input with {@code stats HEAP_USED_AFTER_GC HEAP_MAX THREADS}, and stops at {@code quit} or the input's end.
     */
    private static void serve(Path dir, int maxLoaded) throws Exception {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        try (Embedder embedder = Embedder.onnxDefault(); MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
                LuceneMemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                        .backgroundInterval(Duration.ZERO).build()) {
            EngramServer server = EngramServer.builder(store, search).runtime(rt -> rt.model("bench:instant", new ServerLoad.InstantModel())
                    .maxLoadedAgents(maxLoaded))
                    .defaultModel("bench:instant").port(0).start();
            try {
                out.println("port " + server.port());
                out.println("started " + ManagementFactory.getRuntimeMXBean().getUptime());
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                for (String line = in.readLine(); line != null && !line.equals("quit"); line = in.readLine()) {
                    if (line.equals("touch")) {
                        // every agent of the store asked for once, its prompt compiled (its context read), as its next
                        // message would: what the server then keeps is what many agents cost it, within its bound
                        Layout layout = Layout.read(dir);
                        long t0 = System.nanoTime();
                        for (int i = 0; i < layout.agents(); i++) {
                            Scope scope = layout.scope(i);
                            server.runtime().current(scope.userId(), scope.agentId()).compilePrompt();
                        }
                        out.println("touched " + (System.nanoTime() - t0) / 1_000_000);
                    } else if (line.equals("stats")) {
                        out.println("stats " + heapAfterGc() + " " + Runtime.getRuntime().maxMemory() + " "
                                + ManagementFactory.getThreadMXBean().getThreadCount());
                    }
                }
            } finally {
                server.close();
            }
        }
    }

    /** The heap in use after full collections (a few, until it stops shrinking). */
    private static long heapAfterGc() {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (now >= used) {
                return now;
            }
            used = now;
        }
        return used;
    }

    /** What one run over one store saw. */
    record Row(String store, int maxLoaded, int agents, int users, long readyMs, long startedMs, long heapReady, long heapAfter,
            long heapTouched, long touchedMs, long heapMax,
            int threadsReady, int threadsAfter, LoadClients.Result load, long acknowledged, long lost) {
    }

    private static void run(Path work, int clients, int seconds, int warmup, String xmx, int rounds, String java,
            List<Integer> maxLoaded) throws Exception {
        System.out.printf(Locale.ROOT, "# ManyAgents: %d clients, closed loop, %d s per store after %d s of warm-up, server JVM -Xmx%s, "
                + "%d round%s%n", clients, seconds, warmup, xmx, rounds, rounds > 1 ? "s (few and many alternating)" : "");
        List<Row> rows = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            rows.add(runOne(work.resolve("few"), "few", DEFAULT_MAX_LOADED, clients, seconds, warmup, xmx, java));
            print(rows.getLast());
            for (int max : maxLoaded) {
                rows.add(runOne(work.resolve("many"), "many", max, clients, seconds, warmup, xmx, java));
                print(rows.getLast());
            }
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "| store | agents / users | max loaded | ready (JVM start to /readyz 200) ms | server's own start ms | heap after GC "
                + "ready / after load / after every agent MB (-Xmx) | every agent asked for once, s | threads ready / after | msgs/s | p50 / p99 ms | errors | acknowledged / not stored |%n");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (Row w : rows) {
            System.out.printf(Locale.ROOT, "| %s | %d / %d | %d | %d | %d | %.0f / %.0f / %.0f (%s) | %.1f | %d / %d | %.0f | %.1f / %.1f | %d | %d / %d |%n",
                    w.store(), w.agents(), w.users(), w.maxLoaded(), w.readyMs(), w.startedMs(), w.heapReady() / 1e6, w.heapAfter() / 1e6, w.heapTouched() / 1e6, xmx,
                    w.touchedMs() / 1e3,
                    w.threadsReady(), w.threadsAfter(), w.load().perSecond(), w.load().ms(0.5), w.load().ms(0.99),
                    w.load().errors().size(), w.acknowledged(), w.lost());
        }
    }

    private static void print(Row w) {
        System.out.printf(Locale.ROOT, "%s (%d agents of %d users, at most %d loaded): ready %d ms (server %d ms), heap %.0f -> %.0f MB of %.0f (every agent asked for in %.1f s: %.0f MB), threads %d -> %d, "
                        + "%.0f msgs/s, p50 %.1f ms, p99 %.1f ms, %d errors, %d acknowledged, %d not stored%n", w.store(), w.agents(),
                w.users(), w.maxLoaded(), w.readyMs(), w.startedMs(), w.heapReady() / 1e6, w.heapAfter() / 1e6, w.heapMax() / 1e6, w.touchedMs() / 1e3,
                w.heapTouched() / 1e6, w.threadsReady(),
                w.threadsAfter(), w.load().perSecond(), w.load().ms(0.5), w.load().ms(0.99), w.load().errors().size(), w.acknowledged(),
                w.lost());
        w.load().errors().stream().limit(5).forEach(e -> System.out.println("  error: " + e));
    }

    private static Row runOne(Path dir, String name, int maxLoaded, int clients, int seconds, int warmup, String xmx, String java)
            throws Exception {
        Layout layout = Layout.read(dir);
        long spawned = System.nanoTime();
        Process child = new ProcessBuilder(java, "-Xmx" + xmx, "-cp", System.getProperty("java.class.path"), ManyAgents.class.getName(),
                "--serve", dir.toString(), "--max-loaded", String.valueOf(maxLoaded)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader from = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            PrintWriter to = new PrintWriter(child.getOutputStream(), true, StandardCharsets.UTF_8);
            int port = Integer.parseInt(expect(from, "port"));
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            URI readyz = URI.create("http://127.0.0.1:" + port + "/readyz");
            while (http.send(HttpRequest.newBuilder(readyz).build(), HttpResponse.BodyHandlers.discarding()).statusCode() != 200) {
                Thread.sleep(5);
            }
            long readyMs = (System.nanoTime() - spawned) / 1_000_000;
            long startedMs = Long.parseLong(expect(from, "started"));
            to.println("stats");
            String[] ready = expect(from, "stats").split(" ");

            // C clients, each on a connection of its own, each message to an agent drawn at random (with its user's key)
            Random random = new Random(7);
            List<List<String>> draws = new ArrayList<>();
            Map<String, String> keyOf = new HashMap<>();
            for (int c = 0; c < clients; c++) {
                List<String> mine = new ArrayList<>();
                for (int n = 0; n < 20_000; n++) {
                    int i = random.nextInt(layout.agents());
                    mine.add(agent(i));
                    keyOf.putIfAbsent(agent(i), layout.keys().get(i % layout.users()));
                }
                draws.add(mine);
            }
            List<RawHttpClient> connections = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                connections.add(new RawHttpClient(port));
            }
            LoadClients.Send send = (client, agent, text) -> {
                RawHttpClient.Response r = connections.get(client).post("/v1/agents/" + agent + "/messages", keyOf.get(agent),
                        "{\"input\":\"" + text + "\"}");
                if (r.status() != 200 || !r.body().contains("echo: " + text + "\"")) {
                    throw new IllegalStateException("the reply of " + text + " does not echo it: " + r);
                }
            };
            // a warm-up of the same load, not counted: the JIT compiles the server's paths before the measured run
            Map<String, Set<String>> acknowledged = new HashMap<>();
            if (warmup > 0) {
                LoadClients.run(clients, draws, Duration.ofSeconds(warmup), Optional.empty(), "w", send).acknowledged()
                        .forEach((agent, texts) -> acknowledged.computeIfAbsent(agent, x -> new HashSet<>()).addAll(texts));
            }
            LoadClients.Result load = LoadClients.run(clients, draws, Duration.ofSeconds(seconds), Optional.empty(), "m", send);
            load.acknowledged().forEach((agent, texts) -> acknowledged.computeIfAbsent(agent, x -> new HashSet<>()).addAll(texts));
            for (RawHttpClient c : connections) {
                c.close();
            }
            to.println("stats");
            String[] after = expect(from, "stats").split(" ");
            to.println("touch");
            long touchedMs = Long.parseLong(expect(from, "touched"));
            to.println("stats");
            String[] touched = expect(from, "stats").split(" ");
            to.println("quit");
            child.waitFor();
            long[] checked = checkStored(dir, layout, acknowledged);
            return new Row(name, maxLoaded, layout.agents(), layout.users(), readyMs, startedMs, Long.parseLong(ready[0]), Long.parseLong(after[0]),
                    Long.parseLong(touched[0]), touchedMs,
                    Long.parseLong(ready[1]), Integer.parseInt(ready[2]), Integer.parseInt(after[2]), load, checked[0], checked[1]);
        } finally {
            child.destroy();
        }
    }

    /** The value of the child's next line that starts with {@code word}, skipping others (its log). */
    private static String expect(BufferedReader from, String word) throws IOException {
        for (String line = from.readLine(); line != null; line = from.readLine()) {
            if (line.startsWith(word + " ")) {
                return line.substring(word.length() + 1);
            }
        }
        throw new IllegalStateException("the server exited before saying '" + word + "'");
    }

    /** How many acknowledged messages there were, and how many of them the store does not hold (lost). */
    private static long[] checkStored(Path dir, Layout layout, Map<String, Set<String>> acknowledged) {
        long count = 0;
        long lost = 0;
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < layout.agents(); i++) {
            index.put(agent(i), i);
        }
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            for (Map.Entry<String, Set<String>> e : acknowledged.entrySet()) {
                Set<String> texts = new HashSet<>();
                for (ConversationMessage m : store.messages().list(layout.scope(index.get(e.getKey())),
                        MessageQuery.all().withLimit(1_000_000))) {
                    if (m.role() == MessageRole.USER) {
                        texts.add(m.content());
                    }
                }
                for (String text : e.getValue()) {
                    count++;
                    if (!texts.contains(text)) {
                        lost++;
                    }
                }
            }
        }
        return new long[] {count, lost};
    }
}

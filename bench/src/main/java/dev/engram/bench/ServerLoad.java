package dev.engram.bench;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentRuntime;
import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.postgres.PostgresBackend;
import dev.engram.memory.postgres.PostgresLocks;
import dev.engram.server.EngramServer;
import dev.engram.server.TurnLock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The server under load, and its own cost per message. An instant model answers every message with one
 * {@code send_message} call (one step: store the user message, compile the prompt, call the model, run the call,
 * store the call and its result), and a context summary when the runtime compacts one. The run, on one store:
 *
 * <ol>
 *   <li><b>in-process</b>: one client calls {@code Agent.send} in a loop (the turn {@code AgentStepBenchmark}
 *       measures, with this model), latency p50/p99;</li>
 *   <li><b>HTTP, one client</b>: the same messages through {@code POST /v1/agents/{id}/messages}; the difference of
 *       the medians is the server's own cost per message;</li>
 *   <li><b>HTTP, M clients</b>: M concurrent clients over N agents of U users (each client with its user's key on a
 *       kept-alive connection of its own, through the minimal {@link RawHttpClient}),
 *       for the duration, twice ({@link LoadClients}): in a closed loop, each sending its next message when the last
 *       was answered (the capacity: messages per second), then paced, together offering {@code --rate} messages
 *       per second on fixed schedules (the latency at that load, counted from when each message was due);
 *       p50/p99, errors;</li>
 *   <li><b>checks</b>: every acknowledged message is stored (its text among its agent's user messages), every
 *       reply echoes its own message, and no user's key lists or reads another user's agent.</li>
 * </ol>
 *
 * With {@code --postgres URL} the store is PostgreSQL, the clients alternate between the servers on it (each with
 * its own index and the database turn lock), and search freshness across them is measured: a passage written
 * through one server, searched through the other. Background indexing is off during the load, as in
 * {@code AgentStepBenchmark} (embedding every message at this rate needs more CPU than 2 cores have; the index
 * catches up when searched).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.engram.bench.ServerLoad [--agents 64] [--users 8] [--clients 64]
 *      [--seconds 20] [--rate 300] [--solo 1000] [--postgres jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres
 *      [--instances 2]]
 * </pre>
 *
 * {@code --solo} is the number of messages of each one-client measurement; {@code --instances} the number of servers on
 * the PostgreSQL database (2 by default). On PostgreSQL the run also prints the database's limits beside the figures
 * ({@link PostgresLimits}): a bare {@code INSERT}'s round trip and commit, one client and all clients at once, and the
 * commits and WAL flushes per message of the closed loop.
 */
public final class ServerLoad {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static dev.engram.memory.Embedder EMBEDDER;
    /**
     * Every agent's context window: 8,192 tokens, so that a context holds a few hundred of these short messages
     * and the runtime compacts it as it would a real conversation's (a run of thousands of messages would otherwise
     * measure prompts of ever more messages).
     */
    static final int CONTEXT_WINDOW = 8_192;
    /** Each agent of the load gets up to this many messages first (about one compaction cycle). */
    static final int EARLIER_MESSAGES = 60;

    /** Answers every message at once with one send_message call echoing it. */
    static final class InstantModel implements ChatModel {
        private final AtomicLong calls = new AtomicLong();

        @Override
        public String name() {
            return "instant";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            if (request.tools().isEmpty()) { // the runtime asks for a summary when it compacts the context
                return new ChatResponse(new ChatMessage.Assistant("The user sent numbered test messages.", List.of()),
                        new ChatResponse.Usage(100, 10), ChatResponse.StopReason.END_TURN);
            }
            String text = "";
            for (ChatMessage m : request.messages()) {
                if (m instanceof ChatMessage.User u) {
                    text = u.text();
                }
            }
            String args = JSON.createObjectNode().put("message", "echo: " + text).toString();
            return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall("c" + calls.incrementAndGet(),
                    "send_message", args))), new ChatResponse.Usage(100, 10), ChatResponse.StopReason.TOOL_CALLS);
        }
    }

    record Settings(int agents, int users, int clients, int seconds, double rate, Optional<String> postgres, int instances, int solo) {
        static Settings parse(String[] args) {
            Map<String, String> a = new HashMap<>();
            for (int i = 0; i + 1 < args.length; i += 2) {
                if (!args[i].startsWith("--")) {
                    throw new IllegalArgumentException("unexpected argument " + args[i]);
                }
                a.put(args[i].substring(2), args[i + 1]);
            }
            if (args.length % 2 != 0) {
                throw new IllegalArgumentException("every option takes a value: " + Arrays.toString(args));
            }
            Settings s = new Settings(Integer.parseInt(a.getOrDefault("agents", "64")), Integer.parseInt(a.getOrDefault("users", "8")),
                    Integer.parseInt(a.getOrDefault("clients", "64")), Integer.parseInt(a.getOrDefault("seconds", "20")),
                    Double.parseDouble(a.getOrDefault("rate", "300")), Optional.ofNullable(a.get("postgres")),
                    Integer.parseInt(a.getOrDefault("instances", a.containsKey("postgres") ? "2" : "1")),
                    Integer.parseInt(a.getOrDefault("solo", "1000")));
            if (s.agents < s.users || s.users < 1 || s.clients < 1 || s.seconds < 1 || !(s.rate > 0) || s.solo < 20) {
                throw new IllegalArgumentException("need agents >= users >= 1, clients >= 1, seconds >= 1, rate > 0, solo >= 20");
            }
            if (s.instances < 1 || (s.postgres.isEmpty() && s.instances != 1)) {
                throw new IllegalArgumentException("--instances is 1 on SQLite and at least 1 with --postgres, got " + s.instances);
            }
            return s;
        }
    }

    /** One server over the store. */
    record Instance(MemoryStore store, MemorySearch search, EngramServer server, Optional<PostgresLocks> locks) {
        String url(String path) {
            return "http://127.0.0.1:" + server.port() + path;
        }

        void close() {
            server.close();
            locks.ifPresent(PostgresLocks::close);
            search.close();
            store.close();
        }
    }

    public static void main(String[] args) throws Exception {
        Settings s = Settings.parse(args);
        EMBEDDER = dev.engram.memory.Embedder.onnxDefault();
        Path dir = Files.createTempDirectory("engram-server-load");
        String schema = "load_" + Long.toHexString(System.nanoTime());
        List<Instance> instances = new ArrayList<>();
        for (int i = 0; i < s.instances; i++) {
            instances.add(open(s, dir.resolve("server" + i), schema));
        }
        try {
            run(s, instances, schema);
        } finally {
            instances.forEach(Instance::close);
            EMBEDDER.close();
        }
    }

    private static Instance open(Settings s, Path dir, String schema) throws Exception {
        Files.createDirectories(dir);
        MemoryStore store;
        Optional<PostgresLocks> locks = Optional.empty();
        if (s.postgres.isPresent()) {
            String url = withSchema(s.postgres.get(), schema);
            store = MemoryStore.over(PostgresBackend.open(url, null, null, 32));
            locks = Optional.of(PostgresLocks.open(url, null, null, s.clients + 8));
        } else {
            store = MemoryStore.sqlite(dir.resolve("memory.db"));
        }
        MemorySearch search = LuceneMemorySearch.builder(store, EMBEDDER).directory(dir.resolve("index"))
                .backgroundInterval(Duration.ZERO).build();
        EngramServer.Builder b = EngramServer.builder(store, search).runtime(rt -> rt.model("bench:instant", new InstantModel()))
                .defaultModel("bench:instant").port(0);
        locks.ifPresent(l -> b.turnLock(TurnLock.byName(l::acquire)));
        return new Instance(store, search, b.start(), locks);
    }

    /** The URL with {@code currentSchema} set, creating the schema (a fresh one per run). */
    private static String withSchema(String url, String schema) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url); java.sql.Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
        }
        return inSchema(url, schema);
    }

    private static String inSchema(String url, String schema) {
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    private static void run(Settings s, List<Instance> instances, String schema) throws Exception {
        Instance first = instances.getFirst();
        MemoryStore store = first.store();
        List<String> keys = new ArrayList<>();
        List<List<String>> agentsOf = new ArrayList<>();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        for (int u = 0; u < s.users; u++) {
            keys.add(store.keys().create(Optional.of("user" + u), "load").secret());
            agentsOf.add(new ArrayList<>());
        }
        for (int i = 0; i < s.agents; i++) {
            int u = i % s.users;
            JsonNode created = post(http, first.url("/v1/agents/"), keys.get(u), JSON.createObjectNode().put("name", "agent" + i)
                    .put("context_window_limit", CONTEXT_WINDOW)
                    .set("memory_blocks", JSON.createArrayNode().add(JSON.createObjectNode().put("label", "human")
                            .put("value", "Facts about user " + u + ". ".repeat(20))).add(JSON.createObjectNode()
                            .put("label", "persona").put("value", "A patient assistant. ".repeat(20)))));
            agentsOf.get(u).add(created.path("id").asString());
        }
        // Conversations that started at different times: each agent is somewhere else in its context's fill-and-compact
        // cycle (about 60 of these messages), not all compacting in the same second as agents created together would.
        java.util.Random random = new java.util.Random(42);
        for (int u = 0; u < s.users; u++) {
            for (String agent : agentsOf.get(u)) {
                Agent a = first.server().runtime().current("user" + u, agent);
                for (int n = random.nextInt(EARLIER_MESSAGES); n > 0; n--) {
                    a.send("earlier " + n);
                }
            }
        }
        System.out.printf(Locale.ROOT, "# ServerLoad: %d agents of %d users, %d clients, %d s; store %s; %d server%s%n", s.agents,
                s.users, s.clients, s.seconds, s.postgres.isPresent() ? "PostgreSQL" : "SQLite", instances.size(),
                instances.size() > 1 ? "s (clients alternate)" : "");

        // 1./2. one client, on one agent: in-process (the very Agent the server runs) and over HTTP with both clients,
        // in rotating blocks of 20 messages, so that all three see the same agent, context sizes, store and JIT
        AgentRuntime runtime = first.server().runtime();
        String soloId = post(http, first.url("/v1/agents/"), keys.get(0), JSON.createObjectNode().put("name", "solo")
                        .put("context_window_limit", CONTEXT_WINDOW).set("memory_blocks", JSON.createArrayNode().add(
                                JSON.createObjectNode().put("label", "human").put("value", "Facts. ".repeat(40)))))
                .path("id").asString();
        Agent solo = runtime.current("user0", soloId);
        String soloPath = "/v1/agents/" + soloId + "/messages";
        long[] inProcess = new long[s.solo / 20 * 20];
        long[] overHttp = new long[inProcess.length];
        long[] overRaw = new long[inProcess.length];
        try (RawHttpClient raw = new RawHttpClient(first.server().port())) {
            for (int i = 0; i < inProcess.length * 3 / 10; i++) { // warm-up of all three paths
                solo.send("warm " + i);
                post(http, first.url(soloPath), keys.get(0), message("warm " + i));
                raw.post(soloPath, keys.get(0), message("warm " + i).toString());
            }
            for (int block = 0; block < inProcess.length / 20; block++) {
                for (int i = block * 20; i < block * 20 + 20; i++) {
                    long t0 = System.nanoTime();
                    solo.send("m" + i);
                    inProcess[i] = System.nanoTime() - t0;
                }
                for (int i = block * 20; i < block * 20 + 20; i++) {
                    long t0 = System.nanoTime();
                    post(http, first.url(soloPath), keys.get(0), message("h" + i));
                    overHttp[i] = System.nanoTime() - t0;
                }
                for (int i = block * 20; i < block * 20 + 20; i++) {
                    long t0 = System.nanoTime();
                    if (raw.post(soloPath, keys.get(0), message("r" + i).toString()).status() != 200) {
                        throw new IllegalStateException("the raw client's message failed");
                    }
                    overRaw[i] = System.nanoTime() - t0;
                }
            }
        }
        Arrays.sort(inProcess);
        Arrays.sort(overHttp);
        Arrays.sort(overRaw);
        System.out.printf(Locale.ROOT, "%-34s %10s %10s%n", "one client, sequential", "p50 ms", "p99 ms");
        System.out.printf(Locale.ROOT, "%-34s %10.3f %10.3f%n", "in-process Agent.send", ms(inProcess, 0.50), ms(inProcess, 0.99));
        System.out.printf(Locale.ROOT, "%-34s %10.3f %10.3f%n", "HTTP POST .../messages", ms(overHttp, 0.50), ms(overHttp, 0.99));
        System.out.printf(Locale.ROOT, "%-34s %10.3f %10.3f%n", "same, minimal HTTP/1.1 client", ms(overRaw, 0.50), ms(overRaw, 0.99));
        System.out.printf(Locale.ROOT, "%-34s %10.3f%n", "server's own cost (p50 difference)", ms(overHttp, 0.50) - ms(inProcess, 0.50));
        System.out.printf(Locale.ROOT, "%-34s %10.3f%n", "  with the minimal client", ms(overRaw, 0.50) - ms(inProcess, 0.50));
        long[] health = new long[1000];
        long[] agentGet = new long[1000];
        for (int i = 0; i < health.length; i++) {
            long t0 = System.nanoTime();
            get(http, first.url("/v1/health/"), keys.get(0));
            health[i] = System.nanoTime() - t0;
            t0 = System.nanoTime();
            post(http, first.url("/v1/agents/" + soloId + "/messages/cancel"), keys.get(0), JSON.createObjectNode());
            agentGet[i] = System.nanoTime() - t0;
        }
        Arrays.sort(health);
        Arrays.sort(agentGet);
        System.out.printf(Locale.ROOT, "%-34s %10.3f %10.3f%n", "HTTP GET /v1/health/ (no work)", ms(health, 0.50), ms(health, 0.99));
        System.out.printf(Locale.ROOT, "%-34s %10.3f %10.3f%n", "HTTP POST .../messages/cancel", ms(agentGet, 0.50), ms(agentGet, 0.99));
        Optional<PostgresLimits> limits = s.postgres.isPresent()
                ? Optional.of(new PostgresLimits(inSchema(s.postgres.get(), schema))) : Optional.empty();
        if (limits.isPresent()) {
            limits.get().printBareInserts(s.clients);
        }

        // 3. M concurrent clients: as fast as they are answered (capacity), then paced at the offered rate (latency)
        // Each client on a kept-alive connection of its own, with the minimal client (the JDK's would take a
        // third of these 2 cores from the server).
        List<RawHttpClient> connections = new ArrayList<>();
        for (int c = 0; c < s.clients; c++) {
            connections.add(new RawHttpClient(instances.get(c % instances.size()).server().port()));
        }
        LoadClients.Send send = (client, agent, text) -> {
            RawHttpClient.Response r = connections.get(client).post("/v1/agents/" + agent + "/messages", keys.get(client % s.users),
                    message(text).toString());
            if (r.status() != 200 || !r.body().contains("echo: " + text + "\"")) {
                throw new IllegalStateException("the reply of " + text + " does not echo it: " + r);
            }
        };
        Duration length = Duration.ofSeconds(s.seconds);
        Optional<PostgresLimits.Counts> before = limits.map(PostgresLimits::counts);
        LoadClients.Result closed = LoadClients.run(s.clients, agentsOf, length, Optional.empty(), "c", send);
        Optional<PostgresLimits.Counts> after = limits.map(PostgresLimits::counts);
        LoadClients.Result paced = LoadClients.run(s.clients, agentsOf, length, Optional.of(s.rate), "p", send);
        for (RawHttpClient c : connections) {
            c.close();
        }
        System.out.printf(Locale.ROOT, "%-34s %10s %10s %10s %10s %8s%n", s.clients + " concurrent clients", "msgs/s", "p50 ms", "p99 ms",
                "max ms", "errors");
        report("closed loop (capacity)", closed);
        report(String.format(Locale.ROOT, "paced, %.0f msgs/s offered", s.rate), paced);
        if (before.isPresent() && after.isPresent()) {
            PostgresLimits.Counts d = after.get().minus(before.get());
            double n = closed.latencyNanos().length;
            System.out.printf(Locale.ROOT, "closed loop, per message: %.2f commits (reads included), %.2f WAL flushes (pg_stat_database, "
                    + "pg_stat_wal; PostgreSQL's counts, flushed about once a second)%n", d.commits() / n, d.walSyncs() / n);
            System.out.printf(Locale.ROOT, "closed loop, CPU per message: %.2f ms this JVM (servers and load clients), %s PostgreSQL "
                    + "(its processes, /proc)%n", d.jvmCpuMs() / n, d.pgCpuMs() < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f ms", d.pgCpuMs() / n));
        }
        Map<String, Set<String>> acknowledged = new HashMap<>();
        for (LoadClients.Result r : List.of(closed, paced)) {
            r.acknowledged().forEach((agent, texts) -> acknowledged.computeIfAbsent(agent, a -> new HashSet<>()).addAll(texts));
        }

        // 4. checks
        long lost = 0;
        long stored = 0;
        for (int u = 0; u < s.users; u++) {
            for (String agent : agentsOf.get(u)) {
                Set<String> texts = new HashSet<>();
                for (ConversationMessage m : store.messages().list(Scope.of("user" + u, agent), MessageQuery.all().withLimit(1_000_000))) {
                    if (m.role() == MessageRole.USER) {
                        texts.add(m.content());
                    }
                }
                for (String text : acknowledged.getOrDefault(agent, Set.of())) {
                    stored++;
                    if (!texts.contains(text)) {
                        lost++;
                    }
                }
            }
        }
        long crossUser = 0;
        for (int u = 0; u < s.users; u++) {
            JsonNode listed = get(http, first.url("/v1/agents/?limit=1000"), keys.get(u)).body;
            for (JsonNode a : listed) {
                String id = a.path("id").asString();
                if (!agentsOf.get(u).contains(id) && !(u == 0 && id.equals(soloId))) {
                    crossUser++;
                }
            }
            int other = (u + 1) % s.users;
            if (other != u && get(http, first.url("/v1/agents/" + agentsOf.get(other).getFirst() + "/messages"), keys.get(u)).status != 404) {
                crossUser++;
            }
        }
        System.out.printf(Locale.ROOT, "checks: %d acknowledged messages, %d not stored (lost); %d cross-user hits%n", stored, lost,
                crossUser);

        if (instances.size() > 1) {
            freshness(http, instances, keys.get(0));
        }
    }

    /** A passage written through one server, searched through the other until found: the delay, 20 samples. */
    private static void freshness(HttpClient http, List<Instance> instances, String key) throws Exception {
        String agent = post(http, instances.get(0).url("/v1/agents/"), key, JSON.createObjectNode().put("name", "freshness"))
                .path("id").asString();
        // catch both indexes up with the load's messages first, so that the samples measure one write
        for (Instance i : instances) {
            i.search().awaitIndexed();
        }
        long[] delays = new long[20];
        for (int i = 0; i < delays.length; i++) {
            String word = "zq" + Long.toHexString(System.nanoTime());
            post(http, instances.get(0).url("/v1/agents/" + agent + "/archival-memory"), key,
                    JSON.createObjectNode().put("text", "The code word is " + word + "."));
            long t0 = System.nanoTime();
            while (!get(http, instances.get(1).url("/v1/agents/" + agent + "/archival-memory/search?top_k=1&query=" + word), key)
                    .body.toString().contains(word)) {
                Thread.sleep(5);
            }
            delays[i] = System.nanoTime() - t0;
        }
        Arrays.sort(delays);
        System.out.printf(Locale.ROOT, "search freshness across servers (write through one, found through the other): p50 %.1f ms, "
                + "max %.1f ms%n", ms(delays, 0.5), delays[delays.length - 1] / 1e6);
    }

    private static void report(String what, LoadClients.Result r) {
        System.out.printf(Locale.ROOT, "%-34s %10.1f %10.3f %10.3f %10.3f %8d%n", what, r.perSecond(), r.ms(0.50), r.ms(0.99),
                r.ms(1.0), r.errors().size());
        r.errors().stream().limit(5).forEach(e -> System.out.println("  error: " + e));
    }

    private static JsonNode message(String text) {
        return JSON.createObjectNode().put("input", text);
    }

    private static double ms(long[] sorted, double q) {
        return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))] / 1e6;
    }

    private static JsonNode post(HttpClient http, String url, String key, JsonNode body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("POST " + url + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    record Got(int status, JsonNode body) {
    }

    private static Got get(HttpClient http, String url, String key) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Got(r.statusCode(), r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body()));
    }

    private ServerLoad() {
    }
}

package dev.engram.bench;

import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentRuntime;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.postgres.PostgresBackend;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one message costs on PostgreSQL, counted rather than timed: one agent's in-process sends one after the other
 * (an instant model that answers with one {@code send_message} call), and per send the statements PostgreSQL ran by
 * kind ({@code pg_stat_statements}, which the database must load: {@code shared_preload_libraries=pg_stat_statements}
 * and {@code CREATE EXTENSION pg_stat_statements}), its transactions (reads included), the CPU time of this JVM and of
 * the database's processes (from {@code /proc}, so for a database on this machine), and the p50. Counts do not move
 * with the machine's load; run two builds' jars alternately to compare them.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.engram.bench.PostgresSendCost "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres" [sends]
 * </pre>
 */
public final class PostgresSendCost {
    private PostgresSendCost() {
    }

    /** Answers every step with one {@code send_message} call (a summary when the runtime compacts). */
    private static final class Instant implements ChatModel {
        private final AtomicLong calls = new AtomicLong();

        @Override
        public String name() {
            return "instant";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            if (request.tools().isEmpty()) {
                return new ChatResponse(new ChatMessage.Assistant("summary", List.of()), new ChatResponse.Usage(1, 1),
                        ChatResponse.StopReason.END_TURN);
            }
            return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall("c" + calls.incrementAndGet(),
                    "send_message", "{\"message\":\"echo\"}"))), new ChatResponse.Usage(1, 1), ChatResponse.StopReason.TOOL_CALLS);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || !args[0].startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("usage: PostgresSendCost JDBC_URL [sends, default 200]");
        }
        String base = args[0];
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        if (n < 10) {
            throw new IllegalArgumentException("at least 10 sends, got " + n);
        }
        String schema = "sendcost_" + Long.toHexString(System.nanoTime());
        try (Connection admin = DriverManager.getConnection(base)) {
            try (Statement st = admin.createStatement()) {
                st.execute("CREATE SCHEMA " + schema);
            }
            String url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
            try (Embedder embedder = Embedder.onnxDefault();
                    MemoryStore store = MemoryStore.over(PostgresBackend.open(url, null, null, 8));
                    MemorySearch search = LuceneMemorySearch.builder(store, embedder)
                            .directory(Files.createTempDirectory("engram-send-cost")).backgroundInterval(Duration.ZERO).build();
                    AgentRuntime runtime = AgentRuntime.builder(store, search).model("bench:instant", new Instant()).build()) {
                runtime.create(AgentDefinition.builder("u").id("agent").model("bench:instant").tools("send_message", "block")
                        .approvalMode(ApprovalMode.YOLO).build());
                var agent = runtime.agent("u", "agent");
                for (int i = 0; i < 30; i++) {
                    agent.send("warm-up " + i);
                }
                Thread.sleep(1_200); // the statistics collector publishes about once a second
                try (Statement st = admin.createStatement()) {
                    st.execute("SELECT pg_stat_statements_reset()");
                }
                long commits0 = commits(admin);
                long jvm0 = jvmCpuMs();
                long pg0 = databaseCpuMs(admin);
                long[] latency = new long[n];
                for (int i = 0; i < n; i++) {
                    long t0 = System.nanoTime();
                    agent.send("message " + i);
                    latency[i] = System.nanoTime() - t0;
                }
                long jvm = jvmCpuMs() - jvm0;
                long pg = databaseCpuMs(admin) - pg0;
                Thread.sleep(1_200);
                long commits = commits(admin) - commits0 - 2; // the two statistics reads
                Arrays.sort(latency);
                System.out.printf(Locale.ROOT, "%d sends: p50 %.2f ms; per send: JVM CPU %.2f ms, PostgreSQL CPU %.2f ms, "
                        + "transactions %.2f (reads included)%n", n, latency[n / 2] / 1e6, jvm / (double) n, pg / (double) n,
                        commits / (double) n);
                printStatements(admin, n);
            }
        }
    }

    private static void printStatements(Connection admin, int n) throws SQLException {
        StringBuilder lines = new StringBuilder();
        long total = 0;
        try (Statement st = admin.createStatement(); ResultSet rs = st.executeQuery("SELECT calls, rows, "
                + "left(regexp_replace(query, '\\s+', ' ', 'g'), 100) FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' "
                + "AND query NOT LIKE '%xact_commit%' ORDER BY calls DESC, query")) {
            while (rs.next()) {
                total += rs.getLong(1);
                lines.append(String.format(Locale.ROOT, "  %6.2f  %8.1f rows  %s%n", rs.getLong(1) / (double) n,
                        rs.getLong(2) / (double) n, rs.getString(3)));
            }
        }
        System.out.printf(Locale.ROOT, "statements per send: %.2f (calls, rows per send, statement)%n%s", total / (double) n, lines);
    }

    private static long commits(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long jvmCpuMs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime()
                / 1_000_000;
    }

    /** The CPU time (ms) of the processes {@code pg_stat_activity} lists, from /proc (USER_HZ 100). */
    private static long databaseCpuMs(Connection c) throws Exception {
        long ticks = 0;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pid FROM pg_stat_activity")) {
            while (rs.next()) {
                Path stat = Path.of("/proc", Integer.toString(rs.getInt(1)), "stat");
                if (!Files.isReadable(stat)) {
                    continue;
                }
                String line = Files.readString(stat);
                String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
            }
        }
        return ticks * 10;
    }
}

package dev.engram.bench;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.BlockStore;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The SQLite memory store next to raw JDBC on the same file (the raw side uses increasing text ids, as
 * the store's time-ordered UUIDs are) (raw_* tables, same pragmas: WAL,
 * synchronous=NORMAL): block append latency, archival inserts single and batched, conversation
 * appends, and reads by key. Store operations also write their version row and change-log row in the
 * same transaction; the raw JDBC side does the bare minimum, so the gap is the store's overhead.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 4, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
@State(Scope.Benchmark)
public class MemoryStoreBenchmark {
    private static final dev.engram.memory.Scope SCOPE = dev.engram.memory.Scope.of("bench-user", "bench-agent");
    private static final int BATCH = 1_000;

    private Path dir;
    private MemoryStore store;
    private Connection raw;
    private PreparedStatement rawAppend;
    private PreparedStatement rawInsert;
    private PreparedStatement rawMessage;
    private PreparedStatement rawSelectBlock;
    private PreparedStatement rawSelectArchival;
    private String knownArchivalId;
    private String rawKnownId;
    private long counter;

    @Setup(Level.Trial)
    public void setUp() throws IOException, SQLException {
        dir = Files.createTempDirectory("engram-bench-memory");
        Path file = dir.resolve("memory.db");
        // The appended log outgrows the default largest text (MemoryLimits): give it room.
        store = MemoryStore.over(dev.engram.memory.sqlite.SqliteBackend.open(dev.engram.memory.SqliteOptions.builder(file).build()),
                java.time.Clock.systemUTC(), new dev.engram.memory.MemoryLimits(50_000_000));
        store.blocks().create(SCOPE, NewBlock.builder("log").limit(50_000_000).build());
        knownArchivalId = store.archival().insert(SCOPE, NewArchivalEntry.of("a known fact")).id();

        raw = DriverManager.getConnection("jdbc:sqlite:" + file);
        try (Statement s = raw.createStatement()) {
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=NORMAL");
            s.execute("CREATE TABLE raw_blocks (id INTEGER PRIMARY KEY, value TEXT NOT NULL, version INTEGER NOT NULL)");
            s.execute("INSERT INTO raw_blocks VALUES (1, '', 1)");
            s.execute("CREATE TABLE raw_archival (id TEXT PRIMARY KEY, user_id TEXT, agent_id TEXT, content TEXT)");
            s.execute("CREATE TABLE raw_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT, agent_id TEXT, content TEXT)");
        }
        rawAppend = raw.prepareStatement("UPDATE raw_blocks SET value = value || ?, version = version + 1 WHERE id = 1");
        rawInsert = raw.prepareStatement("INSERT INTO raw_archival VALUES (?, ?, ?, ?)");
        rawMessage = raw.prepareStatement("INSERT INTO raw_messages (user_id, agent_id, content) VALUES (?, ?, ?)");
        rawSelectBlock = raw.prepareStatement("SELECT value, version FROM raw_blocks WHERE id = ?");
        rawSelectArchival = raw.prepareStatement("SELECT content FROM raw_archival WHERE id = ?");
        rawKnownId = UUID.randomUUID().toString();
        rawInsert.setString(1, rawKnownId);
        rawInsert.setString(2, "u");
        rawInsert.setString(3, "a");
        rawInsert.setString(4, "a known fact");
        rawInsert.executeUpdate();
    }

    /** Keeps the appended block small, so every iteration measures the same work. */
    @Setup(Level.Iteration)
    public void resetBlocks() throws SQLException {
        store.blocks().replace(SCOPE, "log", "", BlockStore.ANY_VERSION);
        try (Statement s = raw.createStatement()) {
            s.execute("UPDATE raw_blocks SET value = '' WHERE id = 1");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException, SQLException {
        store.close();
        raw.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Benchmark
    public Block blockAppend() {
        return store.blocks().append(SCOPE, "log", "x", BlockStore.ANY_VERSION);
    }

    @Benchmark
    public int rawJdbcBlockAppend() throws SQLException {
        rawAppend.setString(1, "x");
        return rawAppend.executeUpdate();
    }

    @Benchmark
    public ArchivalEntry archivalInsert() {
        return store.archival().insert(SCOPE, NewArchivalEntry.of("fact number " + (counter++)));
    }

    @Benchmark
    public int rawJdbcArchivalInsert() throws SQLException {
        rawInsert.setString(1, "raw-" + (counter++));
        rawInsert.setString(2, "u");
        rawInsert.setString(3, "a");
        rawInsert.setString(4, "fact number " + (counter++));
        return rawInsert.executeUpdate();
    }

    /** Per row, inside batches of 1,000 in one transaction. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public List<ArchivalEntry> archivalInsertBatched() {
        List<NewArchivalEntry> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            batch.add(NewArchivalEntry.of("batched fact number " + (counter++)));
        }
        return store.archival().insertAll(SCOPE, batch);
    }

    /** Per row, inside batches of 1,000 in one transaction. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int[] rawJdbcArchivalInsertBatched() throws SQLException {
        raw.setAutoCommit(false);
        try {
            for (int i = 0; i < BATCH; i++) {
                rawInsert.setString(1, "raw-" + (counter++));
                rawInsert.setString(2, "u");
                rawInsert.setString(3, "a");
                rawInsert.setString(4, "batched fact number " + (counter++));
                rawInsert.addBatch();
            }
            int[] result = rawInsert.executeBatch();
            raw.commit();
            return result;
        } finally {
            raw.setAutoCommit(true);
        }
    }

    @Benchmark
    public ConversationMessage messageAppend() {
        return store.messages().append(SCOPE, NewMessage.user("session", "message " + (counter++)));
    }

    @Benchmark
    public int rawJdbcMessageAppend() throws SQLException {
        rawMessage.setString(1, "u");
        rawMessage.setString(2, "a");
        rawMessage.setString(3, "message " + (counter++));
        return rawMessage.executeUpdate();
    }

    @Benchmark
    public Block blockGet() {
        return store.blocks().get(SCOPE, "log").orElseThrow();
    }

    @Benchmark
    public String rawJdbcBlockGet() throws SQLException {
        rawSelectBlock.setLong(1, 1);
        try (ResultSet rs = rawSelectBlock.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Benchmark
    public ArchivalEntry archivalGet() {
        return store.archival().get(SCOPE, knownArchivalId).orElseThrow();
    }

    @Benchmark
    public String rawJdbcArchivalGet() throws SQLException {
        rawSelectArchival.setString(1, rawKnownId);
        try (ResultSet rs = rawSelectArchival.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }
}

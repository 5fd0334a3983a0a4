package dev.engram.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * {@link SearchSpeed}'s baselines in the same run: SQLite FTS5's {@code bm25()} over the passages' text, and exact cosine
 * over vectors kept in SQLite rows (what an application without a search index would do), each scoped as Engram's
 * searches are and timed over the same queries.
 */
final class SqliteBaselines {
    private SqliteBaselines() {
    }

    /** Loads passage {@code i}'s text and vector into FTS5 and a vector table, then times both baselines. */
    static void run(Path file, int n, IntFunction<String> text, IntFunction<float[]> vector, int scopeCount, List<String> queries,
            Map<String, float[]> queryVectors) throws SQLException {
        try (Connection c = openBaseline(file)) {
            PreparedStatement fts = c.prepareStatement("INSERT INTO fts (rowid, text, scope) VALUES (?, ?, ?)");
            PreparedStatement vec = c.prepareStatement("INSERT INTO vec (id, scope, v) VALUES (?, ?, ?)");
            c.setAutoCommit(false);
            for (int i = 0; i < n; i++) {
                String scope = "s" + (i % scopeCount);
                fts.setInt(1, i);
                fts.setString(2, text.apply(i));
                fts.setString(3, scope);
                fts.addBatch();
                vec.setInt(1, i);
                vec.setString(2, scope);
                vec.setBytes(3, bytes(vector.apply(i)));
                vec.addBatch();
                if (i % 10_000 == 9_999) {
                    fts.executeBatch();
                    vec.executeBatch();
                    c.commit();
                }
            }
            fts.executeBatch();
            vec.executeBatch();
            c.commit();
            c.setAutoCommit(true);
            Random r = new Random(3);
            runBaselineQueries(c, queries, queryVectors, () -> "s" + r.nextInt(scopeCount));
        }
    }

    private static Connection openBaseline(Path file) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=NORMAL");
            s.execute("CREATE VIRTUAL TABLE fts USING fts5(text, scope)");
            s.execute("CREATE TABLE vec (id INTEGER PRIMARY KEY, scope TEXT NOT NULL, v BLOB NOT NULL)");
            s.execute("CREATE INDEX vec_scope ON vec (scope)");
        }
        return c;
    }

    private static void runBaselineQueries(Connection c, List<String> queries, Map<String, float[]> queryVectors,
            Supplier<String> scope) throws SQLException {
        PreparedStatement fts = c.prepareStatement(
                "SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 10");
        PreparedStatement vec = c.prepareStatement("SELECT id, v FROM vec WHERE scope = ?");
        long[] ftsNanos = new long[queries.size()];
        long[] vecNanos = new long[queries.size()];
        for (int i = 0; i < queries.size(); i++) {
            String s = scope.get();
            String match = "scope:\"" + s + "\" AND (" + ftsTerms(queries.get(i)) + ")";
            long t = System.nanoTime();
            fts.setString(1, match);
            try (ResultSet rs = fts.executeQuery()) {
                while (rs.next()) {
                    rs.getInt(1);
                }
            }
            ftsNanos[i] = System.nanoTime() - t;
            float[] q = queryVectors.get(queries.get(i));
            t = System.nanoTime();
            vec.setString(1, s);
            PriorityQueue<double[]> heap = new PriorityQueue<>(Comparator.comparingDouble(a -> a[0]));
            try (ResultSet rs = vec.executeQuery()) {
                while (rs.next()) {
                    double score = BenchData.dot(q, floats(rs.getBytes(2)));
                    if (heap.size() < 10) {
                        heap.add(new double[] {score, rs.getInt(1)});
                    } else if (score > heap.peek()[0]) {
                        heap.poll();
                        heap.add(new double[] {score, rs.getInt(1)});
                    }
                }
            }
            vecNanos[i] = System.nanoTime() - t;
        }
        Arrays.sort(ftsNanos);
        Arrays.sort(vecNanos);
        System.out.printf(Locale.ROOT, "%-34s %9.3f %9.3f%n", "sqlite fts5 bm25()", ftsNanos[ftsNanos.length / 2] / 1e6,
                ftsNanos[(int) (ftsNanos.length * 0.99)] / 1e6);
        System.out.printf(Locale.ROOT, "%-34s %9.3f %9.3f%n", "sqlite exact cosine (vectors in rows)",
                vecNanos[vecNanos.length / 2] / 1e6, vecNanos[(int) (vecNanos.length * 0.99)] / 1e6);
    }

    /** Every word quoted and OR-ed: FTS5 treats {@code user's}, {@code e-mail}, {@code C++} as syntax otherwise. */
    static String ftsTerms(String text) {
        List<String> words = new ArrayList<>();
        for (String w : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (w.length() > 2) {
                words.add("\"" + w + "\"");
            }
        }
        return words.isEmpty() ? "\"the\"" : String.join(" OR ", words);
    }

    static byte[] bytes(float[] v) {
        ByteBuffer b = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : v) {
            b.putFloat(f);
        }
        return b.array();
    }

    static float[] floats(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        float[] v = new float[bytes.length / 4];
        for (int i = 0; i < v.length; i++) {
            v[i] = b.getFloat();
        }
        return v;
    }
}

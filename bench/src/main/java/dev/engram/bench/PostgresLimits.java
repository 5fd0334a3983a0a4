package dev.engram.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The database's own limits beside {@link ServerLoad}'s PostgreSQL figures, on the same database in the same run: a
 * bare {@code INSERT} of one short row in a transaction of its own (a round trip and a commit that waits for the WAL
 * flush), one client after the other and many clients at once (where PostgreSQL's commits share flushes), and the
 * counters of commits and WAL flushes the database keeps, to say how many a message costs.
 */
final class PostgresLimits {
    /**
     * The commits and WAL flushes PostgreSQL counted so far, and the CPU time (ms) of this JVM (the servers and the load
     * clients) and of the database's processes (read from {@code /proc} for the processes {@code pg_stat_activity}
     * lists, so only for a database on this machine, else -1; a process that ended in between is not counted).
     */
    record Counts(long commits, long walSyncs, long jvmCpuMs, long pgCpuMs) {
        Counts minus(Counts earlier) {
            return new Counts(commits - earlier.commits, walSyncs - earlier.walSyncs, jvmCpuMs - earlier.jvmCpuMs,
                    pgCpuMs < 0 || earlier.pgCpuMs < 0 ? -1 : pgCpuMs - earlier.pgCpuMs);
        }
    }

    /** At most this many connections insert at once (two servers' pools already hold most of PostgreSQL's 100). */
    static final int MAX_INSERTERS = 16;
    private final String url;
    /** Opened before the load, for the counters: the servers' pools may take every connection the database allows. */
    private final Connection counters;

    PostgresLimits(String url) throws SQLException {
        this.url = url;
        this.counters = DriverManager.getConnection(url);
    }

    /** PostgreSQL's counts now (it publishes them about once a second). */
    Counts counts() {
        try (Statement st = counters.createStatement();
                ResultSet rs = st.executeQuery("SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()), "
                        + "(SELECT wal_sync FROM pg_stat_wal)")) {
            rs.next();
            long commits = rs.getLong(1);
            long walSyncs = rs.getLong(2);
            long jvm = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                    .getOperatingSystemMXBean()).getProcessCpuTime() / 1_000_000;
            return new Counts(commits, walSyncs, jvm, databaseCpuMs());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read PostgreSQL's statistics: " + e.getMessage(), e);
        }
    }

    /** The CPU time of the database's processes (ms), from /proc; -1 when they are not on this machine. */
    private long databaseCpuMs() throws SQLException {
        long ticks = 0;
        try (Statement st = counters.createStatement(); ResultSet rs = st.executeQuery("SELECT pid FROM pg_stat_activity")) {
            while (rs.next()) {
                java.nio.file.Path stat = java.nio.file.Path.of("/proc", Integer.toString(rs.getInt(1)), "stat");
                String line;
                try {
                    line = java.nio.file.Files.readString(stat);
                } catch (java.io.IOException e) {
                    if (!java.nio.file.Files.exists(java.nio.file.Path.of("/proc"))) {
                        return -1;
                    }
                    continue; // it ended meanwhile, or it is another machine's process
                }
                String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
            }
        }
        return ticks * 10; // USER_HZ is 100 on Linux
    }

    /**
     * Prints the bare {@code INSERT}: p50/p99 of 300 one after the other on one connection, then the commits per
     * second of {@code clients} connections (at most {@value #MAX_INSERTERS}) inserting at once for 3 seconds.
     */
    void printBareInserts(int clients) throws Exception {
        int inserters = Math.min(clients, MAX_INSERTERS);
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS bench_bare_inserts (id BIGSERIAL PRIMARY KEY, text TEXT NOT NULL)");
        }
        long[] one = new long[300];
        try (Connection c = DriverManager.getConnection(url);
                PreparedStatement insert = c.prepareStatement("INSERT INTO bench_bare_inserts (text) VALUES (?)")) {
            for (int i = -50; i < one.length; i++) { // 50 to warm up
                long t0 = System.nanoTime();
                insert.setString(1, "bare " + i);
                insert.executeUpdate();
                if (i >= 0) {
                    one[i] = System.nanoTime() - t0;
                }
            }
        }
        Arrays.sort(one);
        System.out.printf(Locale.ROOT, "%-34s %10.3f %10.3f%n", "bare INSERT + commit, one client", one[one.length / 2] / 1e6,
                one[one.length * 99 / 100] / 1e6);
        AtomicLong commits = new AtomicLong();
        long end = System.nanoTime() + 3_000_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < inserters; t++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try (Connection c = DriverManager.getConnection(url);
                        PreparedStatement insert = c.prepareStatement("INSERT INTO bench_bare_inserts (text) VALUES (?)")) {
                    while (System.nanoTime() < end) {
                        insert.setString(1, "many");
                        insert.executeUpdate();
                        commits.incrementAndGet();
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.printf(Locale.ROOT, "%-34s %10.1f commits/s%n", "bare INSERT + commit, " + inserters + " clients", commits.get() / 3.0);
    }
}

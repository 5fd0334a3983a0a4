package dev.engram.memory.postgres;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A throwaway PostgreSQL server from the installed binaries: {@code initdb} into a temporary directory,
 * then {@code pg_ctl start} on a free loopback port, with its socket in that directory. As root (CI),
 * both run as the {@code postgres} user through {@code runuser}, since PostgreSQL refuses to run as root.
 * Shipped in this module's test-jar for other modules' tests.
 */
public final class PostgresServer implements AutoCloseable {
    private static final String TEMPLATE = "engram_template";
    private static final java.util.concurrent.atomic.AtomicInteger SCHEMAS = new java.util.concurrent.atomic.AtomicInteger();
    /** The cluster of {@link #sharedOrSkip()}, started by its first call. */
    private static PostgresServer shared;
    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asPostgres;
    private ExecutorService background;
    private Future<String> next;
    private boolean isShared;

    private PostgresServer(Path bin, Path dir, int port, boolean asPostgres) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.asPostgres = asPostgres;
    }

    /** The newest installed server's bin directory, if any. */
    public static Optional<Path> binaries() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                    .max(Comparator.comparing(Path::toString));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Starts a cluster of the newest installed server, or skips the calling test (a JUnit assumption) with the command
     * that installs one when no server binaries are installed.
     */
    public static PostgresServer startOrSkip() throws Exception {
        Optional<Path> bin = binaries();
        Assumptions.assumeTrue(bin.isPresent(), "skipped: no PostgreSQL server binaries under /usr/lib/postgresql "
                + "(apt-get install postgresql-15)");
        return start(bin.get());
    }

    /**
     * The one cluster of this test JVM, started by the first call, or a skip as {@link #startOrSkip()}: each cluster
     * costs an {@code initdb} and a start (about two seconds of a 2-core machine), so the test classes that work only
     * in their own new schemas or databases ({@link #newSchema()}, {@link #newMigratedDatabase(Function)}) share it
     * instead of starting one each; nothing one class writes is in another's schema or database. A class that stops,
     * restarts or reconfigures its server starts its own ({@link #startOrSkip()}). {@link #close()} on the shared
     * cluster does nothing, so a class closes what it was given in its {@code @AfterAll} either way; the cluster is
     * stopped, and its directory deleted, when the JVM exits.
     */
    public static synchronized PostgresServer sharedOrSkip() throws Exception {
        Optional<Path> bin = binaries();
        Assumptions.assumeTrue(bin.isPresent(), "skipped: no PostgreSQL server binaries under /usr/lib/postgresql "
                + "(apt-get install postgresql-15)");
        if (shared == null) {
            PostgresServer server = start(bin.get());
            server.isShared = true;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.stopAndDelete();
                } catch (Exception e) {
                    System.err.println("cannot stop the shared PostgreSQL test cluster in " + server.dir + ": " + e);
                }
            }, "pg-shared-stop"));
            shared = server;
        }
        return shared;
    }

    public static PostgresServer start(Path bin) throws Exception {
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "engram-pg-");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        PostgresServer server = new PostgresServer(bin, dir, port, root);
        if (root) {
            run(List.of("chown", "postgres", dir.toString()), false);
        }
        server.pg(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-A", "trust", "-U", "postgres",
                "--no-sync", "-E", "UTF8"));
        server.startAgain();
        return server;
    }

    /** Starts the stopped server again, on the same port and data. */
    public void startAgain() throws Exception {
        pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-l",
                dir.resolve("log").toString(), "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off",
                "start"));
    }

    /** Stops the server as an operator's restart does ({@code pg_ctl stop -m fast}: open sessions are ended). */
    public void stop() throws Exception {
        if (isShared) {
            throw new IllegalStateException("the shared test cluster is not stopped by a test: start one with startOrSkip()");
        }
        pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-m", "fast", "stop"));
    }

    public String jdbcUrl(String schema) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?currentSchema=" + schema;
    }

    /** A JDBC URL of the {@code public} schema of {@code database} (see {@link #newMigratedDatabase(Function)}). */
    public String databaseUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /**
     * A new database holding the schema {@code migrate} leaves in an empty database, without running it again: the
     * first call runs {@code migrate} (given a JDBC URL) once on a template database, and every call takes a copy of
     * that template ({@code CREATE DATABASE ... TEMPLATE}, a file copy, cheaper than a migration run). The next copy
     * is made in the background while the caller works with this one. A copy starts with a fresh
     * {@code store_identity}, as a newly migrated database does.
     */
    public synchronized String newMigratedDatabase(Function<String, AutoCloseable> migrate) {
        try {
            if (background == null) {
                try (Connection c = DriverManager.getConnection(jdbcUrl("public"), "postgres", "");
                        Statement st = c.createStatement()) {
                    st.execute("CREATE DATABASE " + TEMPLATE);
                }
                migrate.apply(databaseUrl(TEMPLATE)).close();
                background = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("pg-template-copies").factory());
                next = background.submit(this::copyTemplate);
            }
            String database = next.get();
            next = background.submit(this::copyTemplate);
            return database;
        } catch (Exception e) {
            throw new IllegalStateException("cannot copy the migrated template database: " + e.getMessage(), e);
        }
    }

    private String copyTemplate() throws SQLException {
        String database = "d" + SCHEMAS.incrementAndGet();
        try (Connection c = DriverManager.getConnection(jdbcUrl("public"), "postgres", "");
                Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + database + " TEMPLATE " + TEMPLATE + " STRATEGY FILE_COPY");
        }
        try (Connection copy = DriverManager.getConnection(databaseUrl(database), "postgres", "");
                Statement update = copy.createStatement()) {
            update.execute("UPDATE store_identity SET id = md5(random()::text || clock_timestamp()::text)");
        }
        return database;
    }

    /**
     * Drops {@code database}, ending its open sessions: in the background after {@link #newMigratedDatabase(Function)}
     * (the server stops on {@link #close()} whether or not it is done), at once otherwise.
     */
    public synchronized void dropDatabase(String database) {
        if (background != null) {
            background.execute(() -> drop(database));
        } else {
            drop(database);
        }
    }

    private void drop(String database) {
        try (Connection c = DriverManager.getConnection(jdbcUrl("public"), "postgres", "");
                Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop database " + database + ": " + e.getMessage(), e);
        }
    }

    /** A new, empty schema; a JDBC URL of it is {@link #jdbcUrl(String)}. */
    public String newSchema() {
        String schema = "t" + SCHEMAS.incrementAndGet();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl("public"), "postgres", "")) {
            c.createStatement().execute("CREATE SCHEMA " + schema);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("cannot create schema " + schema + ": " + e.getMessage(), e);
        }
        return schema;
    }

    private void pg(List<String> command) throws Exception {
        List<String> cmd = new ArrayList<>();
        if (asPostgres) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.addAll(command);
        run(cmd, true);
    }

    private static void run(List<String> command, boolean quiet) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }

    /** Stops the server and deletes its directory; a no-op on the {@linkplain #sharedOrSkip() shared} cluster. */
    @Override
    public void close() throws Exception {
        if (!isShared) {
            stopAndDelete();
        }
    }

    private void stopAndDelete() throws Exception {
        synchronized (this) {
            if (background != null) {
                background.shutdownNow();
                background.awaitTermination(30, TimeUnit.SECONDS);
            }
        }
        try {
            pg(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate", "stop"));
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}

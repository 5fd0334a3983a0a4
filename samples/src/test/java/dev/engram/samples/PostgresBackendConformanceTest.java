package dev.engram.samples;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.memory.MemoryStore;
import dev.engram.memory.MemoryStoreConformance;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The PostgreSQL sample backend against the same conformance suite as the embedded store, on a throwaway
 * PostgreSQL server (each test in its own schema). Skipped, with a message, when no PostgreSQL server
 * binaries are installed.
 */
class PostgresBackendConformanceTest extends MemoryStoreConformance {
    private static PostgresServer server;
    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    @BeforeAll
    static void startServer() throws Exception {
        Optional<Path> bin = PostgresServer.binaries();
        assumeTrue(bin.isPresent(), "skipped: no PostgreSQL server binaries under /usr/lib/postgresql");
        server = PostgresServer.start(bin.get());
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @org.junit.jupiter.api.Test
    void mainWritesAndReadsThroughTheServer() throws Exception {
        java.io.PrintStream original = System.out;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            String schema = newSchema();
            PostgresBackend.main(new String[] {server.jdbcUrl(schema), "postgres", ""});
            PostgresBackend.main(new String[] {server.jdbcUrl(schema), "postgres", ""});
        } finally {
            System.setOut(original);
        }
        org.assertj.core.api.Assertions.assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains("Block 'human' of sample/helper is at version 2:").contains("is at version 3:");
    }

    private static String newSchema() {
        String schema = "t" + SCHEMAS.incrementAndGet();
        try (Connection c = DriverManager.getConnection(server.jdbcUrl("public"), "postgres", "")) {
            c.createStatement().execute("CREATE SCHEMA " + schema);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return schema;
    }

    @Override
    protected MemoryStore open(Path dir) {
        return MemoryStore.over(PostgresBackend.open(server.jdbcUrl(newSchema()), "postgres", ""));
    }
}

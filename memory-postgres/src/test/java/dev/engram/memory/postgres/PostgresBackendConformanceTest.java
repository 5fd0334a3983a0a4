package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.Block;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MemoryStoreConformance;
import dev.engram.memory.NewBlock;
import dev.engram.memory.SchemaVersionException;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.SchemaMigrations;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL backend against the same conformance suite as the embedded store, on a throwaway PostgreSQL
 * server (each test in its own schema), and what is particular to it: the schema's migrations. Skipped, with a
 * message, when no PostgreSQL server binaries are installed ({@code apt-get install postgresql-15}).
 */
class PostgresBackendConformanceTest extends MemoryStoreConformance {
    private static PostgresServer server;

    @BeforeAll
    static void startServer() throws Exception {
        server = PostgresServer.sharedOrSkip(); // the cluster shared by the test JVM: nothing to close
    }

    /** The database of the test before, dropped when the next one opens (its store is closed by then). */
    private static String previous;

    /**
     * A fresh store in a copy of a database the backend migrated once for the class: the migrations still run, from
     * an empty database, on every run (here once, and in the tests below that open a new schema).
     */
    @Override
    protected MemoryStore open(Path dir) {
        if (previous != null) {
            server.dropDatabase(previous);
        }
        previous = server.newMigratedDatabase(url -> PostgresBackend.open(url, "postgres", ""));
        return MemoryStore.over(PostgresBackend.open(server.databaseUrl(previous), "postgres", ""));
    }

    @Test
    void whatWasWrittenIsThereAfterReopeningAndTheStoreKeepsItsIdentity() {
        String url = server.jdbcUrl(server.newSchema());
        Scope ana = Scope.of("ana", "helper");
        String id;
        try (MemoryStore first = MemoryStore.over(PostgresBackend.open(url, "postgres", ""))) {
            first.blocks().create(ana, NewBlock.builder("human").value("Name: Ana").build());
            id = first.id();
        }
        try (MemoryStore again = MemoryStore.over(PostgresBackend.open(url, "postgres", "", 2))) {
            assertThat(again.blocks().get(ana, "human")).map(Block::value).contains("Name: Ana");
            assertThat(again.id()).isEqualTo(id).isNotBlank();
        }
    }

    @Test
    void theSchemaVersionIsTheHighestMigration() throws Exception {
        java.net.URL dir = PostgresBackend.class.getClassLoader().getResource(PostgresBackend.MIGRATIONS.substring("classpath:".length()));
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of(dir.toURI()))) {
            int highest = files.map(f -> f.getFileName().toString()).filter(n -> n.matches("V\\d+__.*\\.sql"))
                    .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__")))).max().orElseThrow();
            assertThat(PostgresBackend.SCHEMA_VERSION).isEqualTo(highest);
        }
    }

    @Test
    void aDatabaseOfANewerSchemaIsRefusedAndLeftAsItIs() throws Exception {
        String schema = server.newSchema();
        String url = server.jdbcUrl(schema);
        MemoryStore.over(PostgresBackend.open(url, "postgres", "")).close();
        try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
            c.createStatement().execute("INSERT INTO " + SchemaMigrations.HISTORY_TABLE + " (installed_rank, version, description, "
                    + "type, script, checksum, installed_by, execution_time, success) VALUES (99, '99', 'future', 'SQL', "
                    + "'V99__future.sql', 0, 'postgres', 0, true)");
        }
        assertThatThrownBy(() -> PostgresBackend.open(url, "postgres", ""))
                .isInstanceOf(SchemaVersionException.class).hasMessageContaining("newer Engram (schema version 99)")
                .hasMessageContaining("The database was not changed.");
    }

    @Test
    void badSettingsAreRefusedWithASentence() {
        assertThatThrownBy(() -> PostgresBackend.open("jdbc:sqlite:x.db", "u", "p")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a PostgreSQL JDBC URL");
        assertThatThrownBy(() -> PostgresBackend.open(server.jdbcUrl("public"), "postgres", "", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pool size");
        assertThatThrownBy(() -> PostgresBackend.open("jdbc:postgresql://127.0.0.1:1/none", "postgres", ""))
                .isInstanceOf(MemoryException.class).hasMessageContaining("Cannot connect to PostgreSQL");
    }
}

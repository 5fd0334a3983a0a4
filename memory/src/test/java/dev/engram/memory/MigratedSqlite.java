package dev.engram.memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A new SQLite store file without running the migrations for it, for the fixtures of other modules' tests (shipped in
 * this module's test-jar): the first call of a JVM creates and migrates a template file, and every call copies it,
 * with its write-ahead log, and gives the copy a fresh store identity, as a newly created file has. Nothing else in
 * a freshly migrated file differs from one store to the next (Flyway's history is stamped with the database's own
 * time, not the store's clock), so a test opens the copy as it would open a new file.
 *
 * <p>Migrating a new file costs about 100-200 ms of CPU time and some 30 synced commits; a copy about 15 ms. The
 * migrations still run from an empty file once per test JVM here, in every {@code SqliteBackendTest}, and in the tests
 * that open a file of their own.
 */
public final class MigratedSqlite {
    private static Path template;

    private MigratedSqlite() {
    }

    /**
     * Places a copy of a freshly migrated store at {@code file} unless a file is already there (a fixture that reopens
     * its store keeps what it wrote), and returns {@code file}.
     */
    public static Path at(Path file) {
        if (Files.exists(file)) {
            return file;
        }
        Path from = template();
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.copy(from, file);
            Path wal = from.resolveSibling(from.getFileName() + "-wal");
            if (Files.exists(wal)) {
                Files.copy(wal, file.resolveSibling(file.getFileName() + "-wal"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy the migrated template to " + file, e);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
            st.execute("UPDATE store_identity SET id = lower(hex(randomblob(16)))");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot give the copied store " + file + " a new identity: " + e.getMessage(), e);
        }
        return file;
    }

    private static synchronized Path template() {
        if (template == null) {
            try {
                Path dir = Files.createTempDirectory("engram-migrated-");
                Path created = dir.resolve("template.db");
                MemoryStore.sqlite(created).close();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    for (String name : new String[] {"template.db-wal", "template.db-shm", "template.db", ""}) {
                        dir.resolve(name).toFile().delete();
                    }
                }, "migrated-sqlite-cleanup"));
                template = created;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the migrated template", e);
            }
        }
        return template;
    }
}

package dev.engram.memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite against the embedded SQLite backend, each test on a fresh file: a copy of a file the
 * backend created and migrated once for the class (the migrations run from an empty file on every run, there and
 * in the SQLite backend's own tests), given a fresh store identity as a newly created file has.
 */
class SqliteBackendConformanceTest extends MemoryStoreConformance {
    @TempDir
    static Path templateDir;
    private static Path template;

    @Override
    protected MemoryStore open(Path dir) {
        Path file = dir.resolve("memory.db");
        try {
            if (template == null) {
                Path created = templateDir.resolve("template.db");
                MemoryStore.sqlite(created).close();
                template = created;
            }
            Files.copy(template, file);
            Path wal = template.resolveSibling(template.getFileName() + "-wal");
            if (Files.exists(wal)) {
                Files.copy(wal, file.resolveSibling(file.getFileName() + "-wal"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement st = c.createStatement()) {
            st.execute("UPDATE store_identity SET id = lower(hex(randomblob(16)))");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot give the copied store a new identity: " + e.getMessage(), e);
        }
        return MemoryStore.sqlite(file);
    }
}

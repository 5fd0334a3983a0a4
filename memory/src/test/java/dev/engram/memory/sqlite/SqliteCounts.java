package dev.engram.memory.sqlite;

import dev.engram.memory.spi.MemoryBackend;

/** What a SQLite store has run, for tests of other modules that count a piece of work's statements. */
public final class SqliteCounts {
    private SqliteCounts() {
    }

    /**
     * The statements a {@link SqliteBackend} has run since it opened (each statement Jdbi runs, on the writer or a
     * reader; transactions' begin and commit are not counted).
     *
     * @throws IllegalArgumentException if the backend is not SQLite's
     */
    public static long statements(MemoryBackend backend) {
        if (!(backend instanceof SqliteBackend sqlite)) {
            throw new IllegalArgumentException("not a SQLite backend: " + backend);
        }
        return sqlite.statements().run();
    }
}

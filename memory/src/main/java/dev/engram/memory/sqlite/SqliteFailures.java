package dev.engram.memory.sqlite;

import dev.engram.memory.MemoryException;
import dev.engram.memory.StorageFullException;
import java.nio.file.Path;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** Which SQLite failures mean "the disk is full", and their message: a sentence for the operator. */
final class SqliteFailures {
    private SqliteFailures() {
    }

    /** {@code e} as a {@link StorageFullException} when SQLite reported {@code SQLITE_FULL}, else {@code e} itself. */
    static RuntimeException translate(RuntimeException e, Path file) {
        if (e instanceof MemoryException || !full(e)) {
            return e;
        }
        return new StorageFullException("The disk that holds the memory database " + file + " is full (SQLITE_FULL); "
                + "the write was refused and nothing of it was written. Everything stored before is intact and can "
                + "still be read; free space on that disk and retry.", e);
    }

    private static boolean full(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLiteException s && (s.getResultCode().code & 0xff) == SQLiteErrorCode.SQLITE_FULL.code) {
                return true;
            }
        }
        return false;
    }
}

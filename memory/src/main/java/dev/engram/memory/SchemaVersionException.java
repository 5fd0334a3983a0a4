package dev.engram.memory;

/** The database was written by a newer Engram (a newer schema) than this one understands. Nothing was changed. */
public class SchemaVersionException extends MemoryException {
    private static final long serialVersionUID = 1L;

    public SchemaVersionException(String message) {
        super(message);
    }
}

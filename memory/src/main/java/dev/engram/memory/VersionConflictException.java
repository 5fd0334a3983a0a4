package dev.engram.memory;

/**
 * An optimistic write lost a race: the block changed since the caller read it. Nothing was written;
 * re-read the block and apply the change again.
 */
public class VersionConflictException extends MemoryException {
    private static final long serialVersionUID = 1L;
    private final String label;
    private final long expectedVersion;
    private final long actualVersion;

    public VersionConflictException(String label, long expectedVersion, long actualVersion) {
        super("Block '" + label + "' is at version " + actualVersion + ", not " + expectedVersion
                + ": it changed since it was read. Nothing was written; read it again and retry.");
        this.label = label;
        this.expectedVersion = expectedVersion;
        this.actualVersion = actualVersion;
    }

    public String label() {
        return label;
    }

    public long expectedVersion() {
        return expectedVersion;
    }

    public long actualVersion() {
        return actualVersion;
    }
}

package dev.engram.memory;

/**
 * A write to a note or archival fact that a newer version has superseded: only the current version changes, so that
 * history keeps what was true when. Nothing was written.
 */
public class SupersededException extends MemoryException {
    private static final long serialVersionUID = 1L;
    private final String id;
    private final String currentId;

    public SupersededException(String what, String id, String currentId) {
        super("The " + what + " '" + id + "' was superseded by '" + currentId + "' and is kept as history. Nothing was "
                + "written; change the current version, '" + currentId + "'.");
        this.id = id;
        this.currentId = currentId;
    }

    /** The superseded version that was written to. */
    public String id() {
        return id;
    }

    /** The current version. */
    public String currentId() {
        return currentId;
    }
}

package dev.engram.memory;

/**
 * A write would take a block past its character limit. Nothing was written. The message states the
 * block's current size, its limit and by how much the write overflows it.
 */
public class LimitExceededException extends MemoryException {
    private static final long serialVersionUID = 1L;
    private final String label;
    private final int currentSize;
    private final int limit;
    private final int attemptedSize;

    /**
     * @param label         the block
     * @param attemptedSize the size the write would have produced
     * @param limit         the block's limit
     * @param currentSize   the block's size now (0 for a block being created)
     */
    public LimitExceededException(String label, int attemptedSize, int limit, int currentSize) {
        this("Block '" + label + "' holds " + currentSize + " of " + limit + " characters; this write would make it "
                + attemptedSize + ", " + (attemptedSize - limit) + " over the limit. The block is unchanged: "
                + "shorten the text, or replace or archive older content first.", label, attemptedSize, limit, currentSize);
    }

    private LimitExceededException(String message, String label, int attemptedSize, int limit, int currentSize) {
        super(message);
        this.label = label;
        this.currentSize = currentSize;
        this.limit = limit;
        this.attemptedSize = attemptedSize;
    }

    /**
     * A block asked for a character limit above the store's largest ({@link MemoryLimits#maxTextChars()}): then
     * {@link #attemptedSize()} is the limit asked for and {@link #limit()} the largest allowed.
     */
    public static LimitExceededException blockLimit(String label, int requestedLimit, int maxLimit) {
        return new LimitExceededException("Block '" + label + "' asks for a limit of " + requestedLimit
                + " characters; this store allows at most " + maxLimit + " per block (MemoryLimits). Nothing was "
                + "stored: ask for a limit of at most " + maxLimit + ".", label, requestedLimit, maxLimit, 0);
    }

    public String label() {
        return label;
    }

    public int currentSize() {
        return currentSize;
    }

    public int limit() {
        return limit;
    }

    public int attemptedSize() {
        return attemptedSize;
    }

    public int overflow() {
        return attemptedSize - limit;
    }
}

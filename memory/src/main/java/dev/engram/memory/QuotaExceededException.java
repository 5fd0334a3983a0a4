package dev.engram.memory;

/**
 * A write would take its user past one of the store's {@link UserQuotas}: nothing of it was stored (inside a unit of
 * work, nothing of the unit). The message names the quota, the limit and the user's usage; the user makes room by
 * deleting something. A server answers it with 403: a quota does not clear with time, so a retry would not help.
 */
public class QuotaExceededException extends MemoryException {
    private static final long serialVersionUID = 1L;

    public QuotaExceededException(String message) {
        super(message);
    }
}

package dev.engram.server;

/** A request would take its user past one of the server's {@link UserQuotas}; nothing was stored. Answered with 403. */
final class QuotaExceededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    QuotaExceededException(String message) {
        super(message, null, false, false);
    }
}

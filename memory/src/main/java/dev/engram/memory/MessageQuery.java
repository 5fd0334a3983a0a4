package dev.engram.memory;

import java.time.Instant;
import java.util.Optional;

/**
 * Which messages of a scope to list: all filters are optional and combine with AND; results are in
 * id order (oldest first), at most {@code limit}.
 *
 * @param sessionId     only this session
 * @param afterId       only ids greater than this
 * @param beforeId      only ids smaller than this
 * @param from          only messages at or after this time
 * @param until         only messages before this time
 * @param inContextOnly only messages still in the context window
 * @param limit         the most to return; positive
 * @param newestFirst   the newest {@code limit} messages (still returned oldest first) instead of the oldest
 */
public record MessageQuery(Optional<String> sessionId, Optional<Long> afterId, Optional<Long> beforeId,
        Optional<Instant> from, Optional<Instant> until, boolean inContextOnly, int limit, boolean newestFirst) {
    public static final int DEFAULT_LIMIT = 1_000;

    public MessageQuery {
        Checks.notNull(sessionId, "sessionId");
        Checks.notNull(afterId, "afterId");
        Checks.notNull(beforeId, "beforeId");
        Checks.notNull(from, "from");
        Checks.notNull(until, "until");
        if (limit <= 0) {
            throw new IllegalArgumentException("message query limit must be positive, got " + limit);
        }
    }

    /** Every message of the scope, oldest first, up to the default limit. */
    public static MessageQuery all() {
        return new MessageQuery(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), false, DEFAULT_LIMIT, false);
    }

    /** The messages still in the context window, oldest first. */
    public static MessageQuery inContext() {
        return all().withInContextOnly(true);
    }

    public MessageQuery withSession(String session) {
        return new MessageQuery(Optional.of(session), afterId, beforeId, from, until, inContextOnly, limit, newestFirst);
    }

    public MessageQuery withIdRange(long afterExclusive, long beforeExclusive) {
        return new MessageQuery(sessionId, Optional.of(afterExclusive), Optional.of(beforeExclusive), from, until,
                inContextOnly, limit, newestFirst);
    }

    public MessageQuery withTimeRange(Instant fromInclusive, Instant untilExclusive) {
        return new MessageQuery(sessionId, afterId, beforeId, Optional.of(fromInclusive), Optional.of(untilExclusive),
                inContextOnly, limit, newestFirst);
    }

    public MessageQuery withInContextOnly(boolean only) {
        return new MessageQuery(sessionId, afterId, beforeId, from, until, only, limit, newestFirst);
    }

    public MessageQuery withLimit(int max) {
        return new MessageQuery(sessionId, afterId, beforeId, from, until, inContextOnly, max, newestFirst);
    }

    public MessageQuery newest(int max) {
        return new MessageQuery(sessionId, afterId, beforeId, from, until, inContextOnly, max, true);
    }
}

package dev.engram.memory;

import java.time.Instant;
import java.util.Optional;

/**
 * A note kept for a user, seen by every agent of that user and by no one else.
 *
 * @param id         {@code note-<uuid>}
 * @param userId     the user it belongs to
 * @param content    the text
 * @param createdAt  when it was saved: from then on it held ({@link #validFrom()})
 * @param updatedAt  when it last changed
 * @param metadata   free fields a search can filter on
 * @param validTo    when a newer version superseded it; empty while it is current
 * @param supersedes the id of the version it replaced, if it replaced one
 */
public record Note(String id, String userId, String content, Instant createdAt, Instant updatedAt, Metadata metadata,
        Optional<Instant> validTo, Optional<String> supersedes) {
    public Note {
        Checks.id(id, "id");
        Checks.id(userId, "user id");
        Checks.text(content, "content");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
        Checks.notNull(metadata, "metadata");
        Checks.notNull(validTo, "validTo");
        Checks.notNull(supersedes, "supersedes");
    }

    /** A current note without metadata. */
    public Note(String id, String userId, String content, Instant createdAt, Instant updatedAt) {
        this(id, userId, content, createdAt, updatedAt, Metadata.empty(), Optional.empty(), Optional.empty());
    }

    /** When it became true: when it was saved. */
    public Instant validFrom() {
        return createdAt;
    }

    /** Whether no newer version has superseded it. */
    public boolean isCurrent() {
        return validTo.isEmpty();
    }

    /** Whether it held at {@code time}: saved at or before it, and not superseded by then. */
    public boolean heldAt(Instant time) {
        return !createdAt.isAfter(time) && validTo.map(time::isBefore).orElse(true);
    }
}

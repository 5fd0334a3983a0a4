package dev.engram.memory;

import java.time.Instant;

/**
 * A note kept for a user, seen by every agent of that user and by no one else.
 *
 * @param id        {@code note-<uuid>}
 * @param userId    the user it belongs to
 * @param content   the text
 * @param createdAt when it was saved
 * @param updatedAt when it last changed
 */
public record Note(String id, String userId, String content, Instant createdAt, Instant updatedAt) {
    public Note {
        Checks.id(id, "id");
        Checks.id(userId, "user id");
        Checks.text(content, "content");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }
}

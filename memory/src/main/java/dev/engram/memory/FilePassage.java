package dev.engram.memory;

import java.time.Instant;

/**
 * One chunk of a {@link FolderFile}'s text (Letta's file passage), searchable in {@link SearchDomain#FILES} by the
 * file's user alone.
 *
 * @param id        {@code passage-<uuid>}
 * @param userId    the user who owns it
 * @param folderId  its file's folder
 * @param fileId    its file
 * @param position  its place in the file, from 0
 * @param text      the chunk
 * @param createdAt when it was stored
 */
public record FilePassage(String id, String userId, String folderId, String fileId, int position, String text,
        Instant createdAt) {
    public FilePassage {
        Checks.id(id, "passage id");
        Checks.id(userId, "user id");
        Checks.id(folderId, "folder id");
        Checks.id(fileId, "file id");
        if (position < 0) {
            throw new IllegalArgumentException("a passage's position is not negative, got " + position);
        }
        Checks.unicode(text, "passage text");
        Checks.notNull(createdAt, "createdAt");
    }
}

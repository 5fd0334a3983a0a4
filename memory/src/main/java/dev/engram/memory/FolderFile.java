package dev.engram.memory;

import java.time.Instant;

/**
 * One file uploaded to a {@link Folder} (Letta's {@code FileMetadata}): what was uploaded, where its processing is, and
 * its whole text once parsed. Its passages ({@link FilePassage}) are the chunks of that text, each searchable.
 *
 * @param id             {@code file-<uuid>}
 * @param userId         the user who owns it (the folder's user)
 * @param folderId       its folder
 * @param name           its name in the folder (unique there)
 * @param originalName   the name it was uploaded with
 * @param mediaType      its media type, such as {@code application/pdf}
 * @param sizeBytes      the bytes uploaded
 * @param status         where its processing is
 * @param error          why processing failed; empty unless {@link FileStatus#ERROR}
 * @param totalChunks    how many passages its text makes (0 until it is parsed)
 * @param chunksEmbedded how many of them are stored and indexed so far
 * @param text           its whole text (Markdown for HTML, the text layer for PDF); empty until it is parsed
 * @param createdAt      when it was uploaded
 * @param updatedAt      when it last changed
 */
public record FolderFile(String id, String userId, String folderId, String name, String originalName, String mediaType,
        long sizeBytes, FileStatus status, String error, int totalChunks, int chunksEmbedded, String text, Instant createdAt,
        Instant updatedAt) {
    /** The prefix of a file's id. */
    public static final String ID_PREFIX = "file-";

    public FolderFile {
        Checks.id(id, "file id");
        Checks.id(userId, "user id");
        Checks.id(folderId, "folder id");
        Checks.id(name, "file name");
        Checks.id(originalName, "original file name");
        Checks.id(mediaType, "media type");
        Checks.notNull(status, "status");
        Checks.unicode(error, "file error");
        Checks.unicode(text, "file text");
        if (sizeBytes < 0 || totalChunks < 0 || chunksEmbedded < 0 || chunksEmbedded > totalChunks) {
            throw new IllegalArgumentException("a file's size and chunk counts are not negative and no more chunks are "
                    + "embedded than it has: size " + sizeBytes + ", chunks " + chunksEmbedded + "/" + totalChunks);
        }
        if ((status == FileStatus.ERROR) == error.isEmpty()) {
            throw new IllegalArgumentException("a file has an error exactly when its status is error (status " + status.wire()
                    + ", error '" + error + "')");
        }
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }

    /** This file at another point of its processing. */
    FolderFile with(FileStatus newStatus, String newError, int total, int embedded, Instant at) {
        return new FolderFile(id, userId, folderId, name, originalName, mediaType, sizeBytes, newStatus, newError, total,
                embedded, text, createdAt, at);
    }

    /**
     * This file without its text (its {@code text} empty, everything else as it is): what a listing that only names files reads.
     */
    public FolderFile head() {
        return text.isEmpty() ? this : new FolderFile(id, userId, folderId, name, originalName, mediaType, sizeBytes, status,
                error, totalChunks, chunksEmbedded, "", createdAt, updatedAt);
    }

    /** This file with its text. */
    FolderFile withText(String newText, Instant at) {
        return new FolderFile(id, userId, folderId, name, originalName, mediaType, sizeBytes, status, error, totalChunks,
                chunksEmbedded, newText, createdAt, at);
    }
}

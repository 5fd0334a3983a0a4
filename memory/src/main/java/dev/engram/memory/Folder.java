package dev.engram.memory;

import java.time.Instant;

/**
 * A user's folder of uploaded files (Letta's folder, formerly its source): the files' text and their passages belong to
 * the user alone, and the folder can be searched ({@link SearchDomain#FILES}) and, later, attached to the user's agents.
 *
 * @param id           {@code source-<uuid>}
 * @param userId       the user who owns it
 * @param name         unique among the user's folders
 * @param description  what it holds, for people and agents; may be empty
 * @param instructions how an agent should use its files; may be empty
 * @param metadata     free metadata
 * @param createdAt    when it was created
 * @param updatedAt    when it last changed
 */
public record Folder(String id, String userId, String name, String description, String instructions, Metadata metadata,
        Instant createdAt, Instant updatedAt) {
    /** The prefix of a folder's id (Letta's folders are its former sources). */
    public static final String ID_PREFIX = "source-";
    /** The longest name. */
    public static final int MAX_NAME = 200;
    /** The longest description or instructions. */
    public static final int MAX_TEXT = 10_000;

    public Folder {
        Checks.id(id, "folder id");
        Checks.id(userId, "user id");
        checkName(name);
        checkText(description, "folder description");
        checkText(instructions, "folder instructions");
        Checks.notNull(metadata, "metadata");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }

    /** This folder renamed. */
    public Folder withName(String newName) {
        return new Folder(id, userId, newName, description, instructions, metadata, createdAt, updatedAt);
    }

    /** This folder with another description. */
    public Folder withDescription(String text) {
        return new Folder(id, userId, name, text, instructions, metadata, createdAt, updatedAt);
    }

    /** This folder with other instructions. */
    public Folder withInstructions(String text) {
        return new Folder(id, userId, name, description, text, metadata, createdAt, updatedAt);
    }

    /** This folder with other metadata. */
    public Folder withMetadata(Metadata newMetadata) {
        return new Folder(id, userId, name, description, instructions, newMetadata, createdAt, updatedAt);
    }

    static void checkName(String name) {
        Checks.id(name, "folder name");
        if (name.length() > MAX_NAME) {
            throw new IllegalArgumentException("a folder name is at most " + MAX_NAME + " characters, got " + name.length());
        }
    }

    private static void checkText(String text, String what) {
        Checks.unicode(text, what);
        if (text.length() > MAX_TEXT) {
            throw new IllegalArgumentException("a " + what + " is at most " + MAX_TEXT + " characters, got " + text.length());
        }
    }
}

package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/** Notes of a user, shared by all the user's agents and by no one else. */
public interface NoteStore {
    /** Saves a new note with id {@code note-<uuid>}. */
    Note save(String userId, String content);

    /**
     * Replaces the content, keeping the id.
     *
     * @throws NotFoundException if the user has no such note
     */
    Note update(String userId, String noteId, String content);

    /** Returns whether the user had such a note. */
    boolean delete(String userId, String noteId);

    Optional<Note> get(String userId, String noteId);

    /** Newest first. */
    List<Note> list(String userId, int offset, int limit);

    long count(String userId);
}

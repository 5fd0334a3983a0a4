package dev.engram.memory.spi;

import dev.engram.memory.Note;
import java.util.List;
import java.util.Optional;

/**
 * The notes of a {@link MemoryBackend}: each user's notes, shared by the user's agents, current or superseded.
 */
public interface NoteRows {
    /** Inserts the note, or replaces the one with its id. */
    void putNote(Note note);

    /** Returns whether the user had a note with that id. */
    boolean deleteNote(String userId, String noteId);

    Optional<Note> note(String userId, String noteId);

    /** The current notes (not superseded), newest first (by creation time, then the later insert first). */
    List<Note> listNotes(String userId, int offset, int limit);

    /** The user's note that superseded the one with id {@code noteId}, if one did. */
    Optional<Note> noteSuperseding(String userId, String noteId);

    /** How many current notes the user has. */
    long countNotes(String userId);
}

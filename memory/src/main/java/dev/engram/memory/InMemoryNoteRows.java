package dev.engram.memory;

import dev.engram.memory.spi.NoteRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The notes of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one lock, and
 * record each change in its one undo log.
 */
interface InMemoryNoteRows extends NoteRows {
    /** Every note by id, with its insertion position. */
    Map<String, InMemoryOwned<Note>> noteTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putNote(Note note) {
        InMemoryOwned<Note> old = noteTable().get(note.id());
        undo().put(noteTable(), note.id(), new InMemoryOwned<>(null, note, old == null ? undo().position() : old.pos()));
    }

    @Override
    default boolean deleteNote(String userId, String noteId) {
        return note(userId, noteId).isPresent() && undo().remove(noteTable(), noteId);
    }

    @Override
    default Optional<Note> note(String userId, String noteId) {
        return Optional.ofNullable(noteTable().get(noteId)).map(InMemoryOwned::row)
                .filter(n -> n.userId().equals(userId));
    }

    @Override
    default List<Note> listNotes(String userId, int offset, int limit) {
        return noteTable().values().stream().filter(o -> o.row().userId().equals(userId) && o.row().isCurrent())
                .sorted(Comparator.comparing((InMemoryOwned<Note> o) -> o.row().createdAt())
                        .thenComparingLong(InMemoryOwned::pos).reversed())
                .skip(offset).limit(limit).map(InMemoryOwned::row).toList();
    }

    @Override
    default Optional<Note> noteSuperseding(String userId, String noteId) {
        return noteTable().values().stream().map(InMemoryOwned::row)
                .filter(n -> n.userId().equals(userId) && n.supersedes().equals(Optional.of(noteId))).findFirst();
    }

    @Override
    default long countNotes(String userId) {
        return noteTable().values().stream().filter(o -> o.row().userId().equals(userId) && o.row().isCurrent()).count();
    }
}

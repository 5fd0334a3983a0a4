package dev.engram.memory;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Notes of a user, shared by all the user's agents and by no one else. */
public final class NoteStore {
    private final StoreCore store;

    NoteStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Saves a new note with id {@code note-<uuid>}.
     *
     * @throws IllegalArgumentException if the content is blank
     */
    public Note save(String userId, String content) {
        Checks.id(userId, "user id");
        MemoryErrors.checkContent(content, "note content");
        store.limits().check(content, "note content");
        return store.write(rows -> {
            store.checkQuota(rows, userId, new UserUsage(0, 0, 0, 1, StoreCore.utf8Bytes(content)));
            Instant now = store.now();
            Note n = new Note(Ids.next("note"), userId, content, now, now);
            rows.putNote(n);
            StoreCore.record(rows, ChangeEvent.Entity.NOTE, n.id(), ChangeEvent.Op.UPSERT, userId, null);
            return n;
        });
    }

    /**
     * Replaces the content, keeping the id.
     *
     * @throws NotFoundException if the user has no such note
     */
    public Note update(String userId, String noteId, String content) {
        Checks.id(userId, "user id");
        Checks.notNull(noteId, "note id");
        MemoryErrors.checkContent(content, "note content");
        store.limits().check(content, "note content");
        return store.write(rows -> {
            Note old = rows.note(userId, noteId).orElseThrow(() -> MemoryErrors.noNote(noteId));
            store.checkQuota(rows, userId, new UserUsage(0, 0, 0, 0, StoreCore.utf8Bytes(content) - StoreCore.utf8Bytes(old.content())));
            Note n = new Note(noteId, userId, content, old.createdAt(), store.now());
            rows.putNote(n);
            StoreCore.record(rows, ChangeEvent.Entity.NOTE, noteId, ChangeEvent.Op.UPSERT, userId, null);
            return n;
        });
    }

    /** Returns whether the user had such a note. */
    public boolean delete(String userId, String noteId) {
        Checks.id(userId, "user id");
        Checks.notNull(noteId, "note id");
        return store.write(rows -> {
            boolean deleted = rows.deleteNote(userId, noteId);
            if (deleted) {
                StoreCore.record(rows, ChangeEvent.Entity.NOTE, noteId, ChangeEvent.Op.DELETE, userId, null);
            }
            return deleted;
        });
    }

    /** The user's note with that id. */
    public Optional<Note> get(String userId, String noteId) {
        Checks.id(userId, "user id");
        Checks.notNull(noteId, "note id");
        return store.read(rows -> rows.note(userId, noteId));
    }

    /** Newest first; {@code offset} not negative, {@code limit} positive. */
    public List<Note> list(String userId, int offset, int limit) {
        Checks.id(userId, "user id");
        MemoryErrors.checkPaging(offset, limit);
        return store.read(rows -> rows.listNotes(userId, offset, limit));
    }

    /** How many notes the user has. */
    public long count(String userId) {
        Checks.id(userId, "user id");
        return store.read(rows -> rows.countNotes(userId));
    }
}

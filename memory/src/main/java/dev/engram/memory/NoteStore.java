package dev.engram.memory;

import dev.engram.memory.spi.Rows;
import java.time.Instant;
import java.util.LinkedList;
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
        return save(userId, content, Metadata.empty());
    }

    /**
     * Saves a new note with id {@code note-<uuid>} and metadata a search can filter on.
     *
     * @throws IllegalArgumentException if the content is blank
     */
    public Note save(String userId, String content, Metadata metadata) {
        Checks.id(userId, "user id");
        MemoryErrors.checkContent(content, "note content");
        Checks.notNull(metadata, "metadata");
        store.limits().check(content, "note content");
        return store.write(rows -> {
            store.checkQuota(rows, userId, new UserUsage(0, 0, 0, 1, StoreCore.utf8Bytes(content)));
            Instant now = store.now();
            Note n = new Note(Ids.next("note"), userId, content, now, now, metadata, Optional.empty(), Optional.empty());
            rows.putNote(n);
            StoreCore.record(rows, ChangeEvent.Entity.NOTE, n.id(), ChangeEvent.Op.UPSERT, userId, null);
            return n;
        });
    }

    /**
     * Replaces the content, keeping the id and the metadata. The old text is gone; to keep it as history, use
     * {@link #supersede}.
     *
     * @throws NotFoundException    if the user has no such note
     * @throws SupersededException if the note was superseded (only the current version changes)
     */
    public Note update(String userId, String noteId, String content) {
        Checks.id(userId, "user id");
        Checks.notNull(noteId, "note id");
        MemoryErrors.checkContent(content, "note content");
        store.limits().check(content, "note content");
        return store.write(rows -> {
            Note old = current(rows, userId, noteId);
            store.checkQuota(rows, userId, new UserUsage(0, 0, 0, 0, StoreCore.utf8Bytes(content) - StoreCore.utf8Bytes(old.content())));
            Note n = new Note(noteId, userId, content, old.createdAt(), store.now(), old.metadata(), Optional.empty(),
                    old.supersedes());
            rows.putNote(n);
            StoreCore.record(rows, ChangeEvent.Entity.NOTE, noteId, ChangeEvent.Op.UPSERT, userId, null);
            return n;
        });
    }

    /**
     * Records that a fact changed: a new note with {@code content} and {@code metadata} replaces the current note
     * {@code noteId}, which keeps its text and is valid until now ({@link Note#validTo()}); the new note records the
     * id it {@linkplain Note#supersedes() supersedes}. Searches find the new one, and the old one only when they ask
     * for a time at which it held. Both writes are one unit: all or nothing.
     *
     * @throws NotFoundException    if the user has no such note
     * @throws SupersededException if it was already superseded
     */
    public Note supersede(String userId, String noteId, String content, Metadata metadata) {
        Checks.id(userId, "user id");
        Checks.notNull(noteId, "note id");
        MemoryErrors.checkContent(content, "note content");
        Checks.notNull(metadata, "metadata");
        store.limits().check(content, "note content");
        return store.write(rows -> {
            Note old = current(rows, userId, noteId);
            store.checkQuota(rows, userId, new UserUsage(0, 0, 0, 1, StoreCore.utf8Bytes(content)));
            Instant now = store.now();
            rows.putNote(new Note(old.id(), userId, old.content(), old.createdAt(), old.updatedAt(), old.metadata(),
                    Optional.of(now), old.supersedes()));
            Note n = new Note(Ids.next("note"), userId, content, now, now, metadata, Optional.empty(), Optional.of(old.id()));
            rows.putNote(n);
            StoreCore.record(rows, ChangeEvent.Entity.NOTE, old.id(), ChangeEvent.Op.UPSERT, userId, null);
            StoreCore.record(rows, ChangeEvent.Entity.NOTE, n.id(), ChangeEvent.Op.UPSERT, userId, null);
            return n;
        });
    }

    /**
     * The versions of the note {@code noteId} belongs to, oldest first: every note it superseded, itself, and every
     * note that superseded it, up to the current one.
     *
     * @throws NotFoundException if the user has no such note
     */
    public List<Note> history(String userId, String noteId) {
        Checks.id(userId, "user id");
        Checks.notNull(noteId, "note id");
        return store.read(rows -> {
            Note at = rows.note(userId, noteId).orElseThrow(() -> MemoryErrors.noNote(noteId));
            LinkedList<Note> out = new LinkedList<>();
            out.add(at);
            for (Note n = at; n.supersedes().isPresent(); ) {
                Optional<Note> older = rows.note(userId, n.supersedes().get());
                if (older.isEmpty()) {
                    break; // deleted
                }
                n = older.get();
                out.addFirst(n);
            }
            for (Optional<Note> newer = rows.noteSuperseding(userId, at.id()); newer.isPresent();
                    newer = rows.noteSuperseding(userId, newer.get().id())) {
                out.addLast(newer.get());
            }
            return List.copyOf(out);
        });
    }

    private static Note current(Rows rows, String userId, String noteId) {
        Note n = rows.note(userId, noteId).orElseThrow(() -> MemoryErrors.noNote(noteId));
        if (!n.isCurrent()) {
            String newest = noteId;
            for (Optional<Note> newer = rows.noteSuperseding(userId, noteId); newer.isPresent();
                    newer = rows.noteSuperseding(userId, newer.get().id())) {
                newest = newer.get().id();
            }
            throw new SupersededException("note", noteId, newest);
        }
        return n;
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

    /** The current notes (not superseded ones), newest first; {@code offset} not negative, {@code limit} positive. */
    public List<Note> list(String userId, int offset, int limit) {
        Checks.id(userId, "user id");
        MemoryErrors.checkPaging(offset, limit);
        return store.read(rows -> rows.listNotes(userId, offset, limit));
    }

    /**
     * The current notes matching {@code filter} (see {@link MemoryFilter}; a note has no {@code agent_id}), newest
     * first, {@code offset} and {@code limit} counted among the matches. The filter is evaluated here, on every backend
     * the same way, over the user's notes read in pages.
     */
    public List<Note> list(String userId, MemoryFilter filter, int offset, int limit) {
        Checks.id(userId, "user id");
        Checks.notNull(filter, "filter");
        MemoryErrors.checkPaging(offset, limit);
        return store.read(rows -> Paging.matching((o, n) -> rows.listNotes(userId, o, n),
                x -> filter.matches(MemoryFilter.fields(x.metadata(), x.createdAt(), x.userId(), Optional.empty())), offset, limit));
    }

    /** How many current notes the user has. */
    public long count(String userId) {
        Checks.id(userId, "user id");
        return store.read(rows -> rows.countNotes(userId));
    }
}

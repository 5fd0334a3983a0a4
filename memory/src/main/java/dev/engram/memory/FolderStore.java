package dev.engram.memory;

import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Each user's folders of uploaded files (Letta's folders and sources): the folders, their files with each file's
 * processing status and whole text, and the passages its text is chunked into. Every passage stored or removed goes
 * through the change log, so a {@link MemorySearch} indexes it in {@link SearchDomain#FILES} under its user and folder,
 * where no other user's search can reach it. Backends keep folders through the optional folder methods of
 * {@link Rows}; over a backend without them every method here throws {@link UnsupportedOperationException}.
 *
 * <p>Folders and files have Letta's ids ({@code source-<uuid4>}, {@code file-<uuid4>}); passages time-ordered ones.
 *
 * <p>A file's text counts towards its user's stored bytes ({@link UserQuotas#storedBytes()}) and is held to the store's
 * largest text ({@link MemoryLimits#maxTextChars()}); its passages, derived from it, count nothing more.
 */
public final class FolderStore {
    /** The most passages listed at once. */
    public static final int MAX_LIST = 1_000;

    private final StoreCore store;
    private final AgentFolders agents;

    FolderStore(StoreCore store) {
        this.store = store;
        this.agents = new AgentFolders(store);
    }

    /** The folders attached to agents, and each agent's open and closed files of them. */
    public AgentFolders agents() {
        return agents;
    }

    /**
     * Creates a folder with id {@code source-<uuid>}.
     *
     * @throws DuplicateException       if the user has a folder of that name
     * @throws IllegalArgumentException if the name is blank or a text too long
     */
    public Folder create(String userId, String name, String description, String instructions, Metadata metadata) {
        Checks.id(userId, "user id");
        Folder.checkName(name);
        return store.write(rows -> {
            checkFreeName(rows, userId, name, "");
            Instant now = store.now();
            Folder folder = new Folder(Folder.ID_PREFIX + UUID.randomUUID(), userId, name, description, instructions, metadata, now, now);
            rows.putFolder(folder);
            return folder;
        });
    }

    /** The user's folder of that id. */
    public Optional<Folder> get(String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "folder id");
        return store.read(rows -> rows.folder(userId, id));
    }

    /** The user's folder of that name. */
    public Optional<Folder> byName(String userId, String name) {
        Checks.notNull(name, "folder name");
        return list(userId).stream().filter(f -> f.name().equals(name)).findFirst();
    }

    /** The user's folders, oldest first. */
    public List<Folder> list(String userId) {
        Checks.id(userId, "user id");
        return store.read(rows -> rows.listFolders(userId));
    }

    /**
     * Stores a changed folder (its name, description, instructions and metadata; made with its {@code with…} methods)
     * and returns it as stored.
     *
     * @throws NotFoundException  if the user has no folder of its id
     * @throws DuplicateException if another folder of the user has its new name
     */
    public Folder update(String userId, Folder changed) {
        Checks.notNull(changed, "folder");
        return store.write(rows -> {
            Folder old = own(rows, userId, changed.id());
            checkFreeName(rows, userId, changed.name(), old.id());
            Folder folder = new Folder(old.id(), userId, changed.name(), changed.description(), changed.instructions(),
                    changed.metadata(), old.createdAt(), store.now());
            rows.putFolder(folder);
            return folder;
        });
    }

    /**
     * Deletes the user's folder with its files and their passages, in one transaction.
     *
     * @throws NotFoundException if the user has no folder of that id
     */
    public void delete(String userId, String id) {
        store.write(rows -> {
            own(rows, userId, id);
            for (FolderFile f : rows.listFiles(userId, id)) {
                removeFile(rows, f);
            }
            rows.deleteFolder(userId, id);
            return null;
        });
    }

    /**
     * Records a file uploaded to the user's folder, {@link FileStatus#PENDING} and without text yet.
     *
     * @throws NotFoundException  if the user has no folder of that id
     * @throws DuplicateException if the folder has a file of that name
     */
    public FolderFile addFile(String userId, String folderId, String name, String originalName, String mediaType,
            long sizeBytes) {
        Checks.id(name, "file name");
        return store.write(rows -> {
            own(rows, userId, folderId);
            if (rows.listFileHeads(userId, folderId).stream().anyMatch(f -> f.name().equals(name))) {
                throw new DuplicateException("Folder '" + folderId + "' already has a file named '" + name
                        + "': upload it under another name, or delete that file first.");
            }
            Instant now = store.now();
            FolderFile file = new FolderFile(FolderFile.ID_PREFIX + UUID.randomUUID(), userId, folderId, name, originalName, mediaType, sizeBytes,
                    FileStatus.PENDING, "", 0, 0, "", now, now);
            rows.putFile(file);
            return file;
        });
    }

    /** The user's file of that id. */
    public Optional<FolderFile> file(String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "file id");
        return store.read(rows -> rows.file(userId, id));
    }

    /**
     * The files of the user's folder, oldest first.
     *
     * @throws NotFoundException if the user has no folder of that id
     */
    public List<FolderFile> files(String userId, String folderId) {
        return store.read(rows -> {
            own(rows, userId, folderId);
            return rows.listFiles(userId, folderId);
        });
    }

    /**
     * Moves the user's file to {@code status} (not {@link FileStatus#ERROR}: see {@link #fail}).
     *
     * @throws NotFoundException if the user has no file of that id
     */
    public FolderFile status(String userId, String fileId, FileStatus status) {
        Checks.notNull(status, "status");
        if (status == FileStatus.ERROR) {
            throw new IllegalArgumentException("a file fails through fail(), with the error that says why");
        }
        return store.write(rows -> {
            FolderFile f = ownFile(rows, userId, fileId);
            FolderFile next = f.with(status, "", f.totalChunks(), f.chunksEmbedded(), store.now());
            rows.putFile(next);
            return next;
        });
    }

    /**
     * Ends the user's file's processing with an error, keeping what was stored.
     *
     * @throws NotFoundException        if the user has no file of that id
     * @throws IllegalArgumentException if the error is blank
     */
    public FolderFile fail(String userId, String fileId, String error) {
        if (error == null || error.isBlank()) {
            throw new IllegalArgumentException("a failed file needs an error saying why it failed");
        }
        return store.write(rows -> {
            FolderFile f = ownFile(rows, userId, fileId);
            FolderFile next = f.with(FileStatus.ERROR, error, f.totalChunks(), f.chunksEmbedded(), store.now());
            rows.putFile(next);
            return next;
        });
    }

    /**
     * Stores the user's file's parsed text and how many passages it will make, and moves it to
     * {@link FileStatus#EMBEDDING}.
     *
     * @throws NotFoundException        if the user has no file of that id
     * @throws QuotaExceededException   if the text would take the user past the stored-bytes quota
     * @throws IllegalArgumentException if the text is longer than the store's largest text
     */
    public FolderFile text(String userId, String fileId, String text, int totalChunks) {
        Checks.unicode(text, "file text");
        store.limits().check(text, "file text");
        if (totalChunks < 0) {
            throw new IllegalArgumentException("a file's chunk count is not negative, got " + totalChunks);
        }
        return store.write(rows -> {
            FolderFile f = ownFile(rows, userId, fileId);
            store.checkQuota(rows, userId, new UserUsage(0, 0, 0, 0, StoreCore.utf8Bytes(text) - StoreCore.utf8Bytes(f.text())));
            Instant now = store.now();
            FolderFile next = f.withText(text, now).with(FileStatus.EMBEDDING, "", totalChunks, 0, now);
            rows.putFile(next);
            return next;
        });
    }

    /**
     * Appends passages to the user's file, after those it has, and counts them as embedded once the caller has seen
     * them indexed ({@link #embedded}).
     *
     * @throws NotFoundException        if the user has no file of that id
     * @throws IllegalArgumentException if a chunk is blank, or there would be more passages than the file's total
     */
    public List<FilePassage> addPassages(String userId, String fileId, List<String> chunks) {
        Checks.noNulls(chunks, "chunks");
        for (String c : chunks) {
            MemoryErrors.checkContent(c, "passage text");
            store.limits().check(c, "passage text");
        }
        return store.write(rows -> {
            FolderFile f = ownFile(rows, userId, fileId);
            int have = rows.passageIds(userId, fileId).size();
            if (have + chunks.size() > f.totalChunks()) {
                throw new IllegalArgumentException("file '" + fileId + "' has " + f.totalChunks() + " chunks; "
                        + have + " are stored and " + chunks.size() + " more would pass that");
            }
            Instant now = store.now();
            List<FilePassage> out = new ArrayList<>(chunks.size());
            List<NewChange> changes = new ArrayList<>(chunks.size());
            for (String c : chunks) {
                FilePassage p = new FilePassage(Ids.next("passage"), userId, f.folderId(), fileId, have + out.size(), c, now);
                out.add(p);
                changes.add(new NewChange(ChangeEvent.Entity.PASSAGE, p.id(), ChangeEvent.Op.UPSERT, userId,
                        Optional.of(f.folderId())));
            }
            rows.insertPassages(out);
            rows.appendChanges(changes);
            return out;
        });
    }

    /**
     * Records that {@code embedded} of the user's file's passages are searchable.
     *
     * @throws NotFoundException        if the user has no file of that id
     * @throws IllegalArgumentException if that is more than the file has
     */
    public FolderFile embedded(String userId, String fileId, int embedded) {
        return store.write(rows -> {
            FolderFile f = ownFile(rows, userId, fileId);
            FolderFile next = f.with(f.status(), f.error(), f.totalChunks(), embedded, store.now());
            rows.putFile(next);
            return next;
        });
    }

    /**
     * Deletes the user's file with its passages.
     *
     * @throws NotFoundException if the user has no file of that id
     */
    public void deleteFile(String userId, String fileId) {
        store.write(rows -> {
            removeFile(rows, ownFile(rows, userId, fileId));
            return null;
        });
    }

    /** How many passages the user's file has stored (0 for a file the user does not have). */
    public int passageCount(String userId, String fileId) {
        Checks.notNull(userId, "user id");
        Checks.notNull(fileId, "file id");
        return store.read(rows -> rows.passageIds(userId, fileId).size());
    }

    /** The user's passage of that id. */
    public Optional<FilePassage> passage(String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "passage id");
        return store.read(rows -> rows.passage(userId, id));
    }

    /**
     * The passages of the user's folder, by file then position: {@code offset} skipped, at most {@code limit} (1 to
     * {@link #MAX_LIST}).
     *
     * @throws NotFoundException if the user has no folder of that id
     */
    public List<FilePassage> passages(String userId, String folderId, int offset, int limit) {
        if (offset < 0 || limit < 1 || limit > MAX_LIST) {
            throw new IllegalArgumentException("list 1 to " + MAX_LIST + " passages from an offset of 0 or more, not "
                    + limit + " from " + offset);
        }
        return store.read(rows -> {
            own(rows, userId, folderId);
            return rows.listPassages(userId, folderId, offset, limit);
        });
    }

    /**
     * How many passages the user's folder holds.
     *
     * @throws NotFoundException if the user has no folder of that id
     */
    public long countPassages(String userId, String folderId) {
        return store.read(rows -> {
            own(rows, userId, folderId);
            return rows.countPassages(userId, folderId);
        });
    }

    private static void removeFile(Rows rows, FolderFile f) {
        List<NewChange> changes = rows.passageIds(f.userId(), f.id()).stream()
                .map(p -> new NewChange(ChangeEvent.Entity.PASSAGE, p, ChangeEvent.Op.DELETE, f.userId(),
                        Optional.of(f.folderId()))).toList();
        rows.deleteFile(f.userId(), f.id());
        if (!changes.isEmpty()) {
            rows.appendChanges(changes);
        }
    }

    private static void checkFreeName(Rows rows, String userId, String name, String exceptId) {
        if (rows.listFolders(userId).stream().anyMatch(f -> f.name().equals(name) && !f.id().equals(exceptId))) {
            throw new DuplicateException("A folder named '" + name + "' already exists: choose another name, or use that folder.");
        }
    }

    private static Folder own(Rows rows, String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "folder id");
        return rows.folder(userId, id).orElseThrow(() -> new NotFoundException("Folder '" + id + "' not found."));
    }

    private static FolderFile ownFile(Rows rows, String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "file id");
        return rows.file(userId, id).orElseThrow(() -> new NotFoundException("File '" + id + "' not found."));
    }
}

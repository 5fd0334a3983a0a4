package dev.engram.memory;

import dev.engram.memory.spi.Rows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Folders attached to agents, and each agent's files of them (Letta's {@code sources_agents} and {@code files_agents}):
 * an attached folder's files are in the agent's prompt, open (with a window of lines) or closed, and its file tools
 * reach them. A folder is attached only to an agent of its own user; every method takes the agent's scope and nothing
 * of another user's is found. Backends keep attachments through the optional folder methods of
 * {@link Rows}; over a backend without them {@link #attached} and {@link #files} are empty and
 * the other methods throw {@link UnsupportedOperationException}.
 */
public final class AgentFolders {
    /** The most folders attached to one agent. */
    public static final int MAX_PER_AGENT = 100;

    private final StoreCore store;

    AgentFolders(StoreCore store) {
        this.store = store;
    }

    /**
     * Attaches the user's folder to the user's agent and opens its newest files, up to {@code limits}' open files (the
     * least recently used open ones closing first, as Letta does). Returns whether it was attached now ({@code false}:
     * it already was, and nothing changed).
     *
     * @throws NotFoundException        if the user has no such folder or no such agent
     * @throws IllegalArgumentException if the agent already has {@link #MAX_PER_AGENT} folders; nothing changes then
     */
    public boolean attach(Scope agent, String folderId, FileLimits limits) {
        Checks.notNull(agent, "agent");
        Checks.notNull(folderId, "folder id");
        Checks.notNull(limits, "file limits");
        return store.write(rows -> {
            Folder folder = ownFolder(rows, agent.userId(), folderId);
            rows.agent(agent).orElseThrow(() -> MemoryErrors.noAgent(agent));
            List<Folder> attached = rows.agentFolders(agent);
            if (attached.stream().anyMatch(f -> f.id().equals(folderId))) {
                return false;
            }
            if (attached.size() >= MAX_PER_AGENT) {
                throw new IllegalArgumentException("agent '" + agent.agentId() + "' already has " + MAX_PER_AGENT
                        + " folders attached; detach one first");
            }
            rows.attachFolder(agent.userId(), folderId, agent.agentId(), store.now());
            // What the agent's prompt shows changed: logged as the archive attachments are (ChangeEvent)
            StoreCore.record(rows, ChangeEvent.Entity.ARCHIVAL, folderId, ChangeEvent.Op.UPSERT, agent.userId(), agent.agentId());
            List<FolderFile> files = rows.listFileHeads(agent.userId(), folderId);
            List<FolderFile> newest = files.subList(Math.max(0, files.size() - limits.maxFilesOpen()), files.size());
            for (FolderFile f : newest) {
                open(rows, agent, folder, f, 0, 0, limits.maxFilesOpen());
            }
            return true;
        });
    }

    /**
     * Detaches the folder from the agent, forgetting the agent's state of its files: they leave its prompt. Returns
     * whether it was attached.
     *
     * @throws NotFoundException if the user has no such folder
     */
    public boolean detach(Scope agent, String folderId) {
        Checks.notNull(agent, "agent");
        Checks.notNull(folderId, "folder id");
        return store.write(rows -> {
            ownFolder(rows, agent.userId(), folderId);
            boolean was = rows.detachFolder(agent.userId(), folderId, agent.agentId());
            if (was) {
                StoreCore.record(rows, ChangeEvent.Entity.ARCHIVAL, folderId, ChangeEvent.Op.DELETE, agent.userId(),
                        agent.agentId());
            }
            return was;
        });
    }

    /** The folders attached to the agent, the earliest attached first; empty over a backend that keeps no folders. */
    public List<Folder> attached(Scope agent) {
        Checks.notNull(agent, "agent");
        return store.read(rows -> {
            try {
                return rows.agentFolders(agent);
            } catch (UnsupportedOperationException noFolders) {
                return List.<Folder>of();
            }
        });
    }

    /**
     * The agents the user's folder is attached to, the earliest attached first.
     *
     * @throws NotFoundException if the user has no such folder
     */
    public List<String> agents(String userId, String folderId) {
        Checks.id(userId, "user id");
        Checks.notNull(folderId, "folder id");
        return store.read(rows -> {
            ownFolder(rows, userId, folderId);
            return rows.folderAgents(userId, folderId);
        });
    }

    /**
     * Every file of the folders attached to the agent, by folder (earliest attached first) then file (oldest first),
     * each open or closed; empty over a backend that keeps no folders.
     */
    public List<AgentFile> files(Scope agent) {
        Checks.notNull(agent, "agent");
        return store.read(rows -> {
            try {
                return files(rows, agent);
            } catch (UnsupportedOperationException noFolders) {
                return List.<AgentFile>of();
            }
        });
    }

    /**
     * Every file of the folders attached to the agent as its prompt shows them, in the order of {@link #files}: the open
     * ones with their text, the closed ones named only (their {@link FolderFile#text()} empty), so that the text of a
     * closed file is never read; empty over a backend that keeps no folders.
     */
    public List<AgentFile> view(Scope agent) {
        Checks.notNull(agent, "agent");
        return store.read(rows -> {
            try {
                List<AgentFile> out = new ArrayList<>();
                for (AgentFile f : heads(rows, agent)) {
                    out.add(f.open() ? withText(rows, f) : f);
                }
                return out;
            } catch (UnsupportedOperationException noFolders) {
                return List.<AgentFile>of();
            }
        });
    }

    /**
     * Every file of the folders attached to the agent, in the order of {@link #files}, open or closed, none with its text
     * (each {@link FolderFile#text()} empty): what names the files without reading any; empty over a backend that keeps
     * no folders.
     */
    public List<AgentFile> named(Scope agent) {
        Checks.notNull(agent, "agent");
        return store.read(rows -> {
            try {
                return heads(rows, agent);
            } catch (UnsupportedOperationException noFolders) {
                return List.<AgentFile>of();
            }
        });
    }

    /**
     * The attached file the agent knows by that name ({@code folder/file}), or by its bare file name when only one has
     * it, with its text (the other files' texts are not read).
     */
    public Optional<AgentFile> byName(Scope agent, String name) {
        Checks.notNull(agent, "agent");
        Checks.notNull(name, "file name");
        return store.read(rows -> {
            List<AgentFile> all;
            try {
                all = heads(rows, agent);
            } catch (UnsupportedOperationException noFolders) {
                return Optional.<AgentFile>empty();
            }
            Optional<AgentFile> exact = all.stream().filter(f -> f.name().equals(name)).findFirst();
            if (exact.isEmpty()) {
                List<AgentFile> bare = all.stream().filter(f -> f.file().name().equals(name)).toList();
                exact = bare.size() == 1 ? Optional.of(bare.get(0)) : Optional.empty();
            }
            return exact.map(f -> withText(rows, f));
        });
    }

    /**
     * Opens the attached file in the agent's prompt with a window of {@code length} lines (0: to the end) from line
     * {@code offset} (0-based), closing the least recently used open files past {@code maxFilesOpen}. Returns the names
     * of the files it closed.
     *
     * @throws NotFoundException        if the file is not the user's or its folder is not attached to the agent
     * @throws IllegalArgumentException if the window is negative or starts past the file's last line; nothing changes then
     */
    public List<String> open(Scope agent, String fileId, int offset, int length, int maxFilesOpen) {
        Checks.notNull(agent, "agent");
        Checks.notNull(fileId, "file id");
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("a file opens at line 0 or later with 0 (all) or more lines, not " + length
                    + " from " + offset);
        }
        if (maxFilesOpen < 1) {
            throw new IllegalArgumentException("the most files open must be positive, got " + maxFilesOpen);
        }
        return store.write(rows -> {
            AgentFile f = withText(rows, attachedFile(rows, agent, fileId));
            int lines = f.lines().size();
            if (offset > 0 && offset >= lines) {
                throw new IllegalArgumentException("File " + f.name() + " has only " + lines + " lines, but offset "
                        + (offset + 1) + " was requested");
            }
            return open(rows, agent, f.folder(), f.file(), offset, length, maxFilesOpen);
        });
    }

    /**
     * Closes the attached file; returns whether it was open.
     *
     * @throws NotFoundException if the file is not the user's or its folder is not attached to the agent
     */
    public boolean close(Scope agent, String fileId) {
        Checks.notNull(agent, "agent");
        Checks.notNull(fileId, "file id");
        return store.write(rows -> {
            AgentFile f = attachedFile(rows, agent, fileId);
            if (!f.open()) {
                return false;
            }
            rows.putFileState(state(agent, f).closed());
            return true;
        });
    }

    /** Closes every open file of the agent except those named in {@code keep}; returns the names of those it closed. */
    public List<String> closeAll(Scope agent, List<String> keep) {
        Checks.notNull(agent, "agent");
        Checks.noNulls(keep, "names to keep");
        return store.write(rows -> {
            List<String> closed = new ArrayList<>();
            for (AgentFile f : heads(rows, agent)) {
                if (f.open() && !keep.contains(f.name())) {
                    rows.putFileState(state(agent, f).closed());
                    closed.add(f.name());
                }
            }
            return closed;
        });
    }

    /** Records that the agent used these attached files now (a search found them), so they close last. */
    public void touch(Scope agent, List<String> fileIds) {
        Checks.notNull(agent, "agent");
        Checks.noNulls(fileIds, "file ids");
        if (fileIds.isEmpty()) {
            return;
        }
        store.write(rows -> {
            Instant now = store.now();
            for (AgentFile f : heads(rows, agent)) {
                if (fileIds.contains(f.file().id())) {
                    FileState s = state(agent, f);
                    rows.putFileState(new FileState(s.userId(), s.agentId(), s.fileId(), s.folderId(), s.open(), s.offset(),
                            s.length(), now));
                }
            }
            return null;
        });
    }

    private List<String> open(Rows rows, Scope agent, Folder folder, FolderFile file, int offset,
            int length, int maxFilesOpen) {
        List<FileState> states = rows.fileStates(agent);
        Instant latest = states.stream().map(FileState::lastAccessedAt).max(Comparator.naturalOrder()).orElse(Instant.EPOCH);
        Instant now = store.now();
        // a strictly later stamp than any other, so that the order of use is total even under a clock that stands still
        Instant at = now.isAfter(latest) ? now : latest.plusNanos(1_000);
        Map<String, String> names = new HashMap<>();
        for (AgentFile f : heads(rows, agent)) {
            names.put(f.file().id(), f.name());
        }
        List<FileState> others = states.stream().filter(s -> s.open() && !s.fileId().equals(file.id()))
                .sorted(Comparator.comparing(FileState::lastAccessedAt)).toList();
        List<String> closed = new ArrayList<>();
        for (int i = 0; i < others.size() - (maxFilesOpen - 1); i++) {
            rows.putFileState(others.get(i).closed());
            closed.add(names.getOrDefault(others.get(i).fileId(), others.get(i).fileId()));
        }
        rows.putFileState(new FileState(agent.userId(), agent.agentId(), file.id(), folder.id(), true, offset, length, at));
        return closed;
    }

    private static List<AgentFile> files(Rows rows, Scope agent) {
        return files(rows, agent, false);
    }

    /** The agent's files without their texts. */
    private static List<AgentFile> heads(Rows rows, Scope agent) {
        return files(rows, agent, true);
    }

    private static List<AgentFile> files(Rows rows, Scope agent, boolean heads) {
        Map<String, FileState> states = new HashMap<>();
        rows.fileStates(agent).forEach(s -> states.put(s.fileId(), s));
        List<AgentFile> out = new ArrayList<>();
        for (Folder folder : rows.agentFolders(agent)) {
            List<FolderFile> inFolder = heads ? rows.listFileHeads(agent.userId(), folder.id())
                    : rows.listFiles(agent.userId(), folder.id());
            for (FolderFile f : inFolder) {
                FileState s = states.get(f.id());
                out.add(s == null ? new AgentFile(folder, f, false, 0, 0, Optional.empty())
                        : new AgentFile(folder, f, s.open(), s.offset(), s.length(), Optional.of(s.lastAccessedAt())));
            }
        }
        return out;
    }

    /** The agent's file {@code f} with its text, read now. */
    private static AgentFile withText(Rows rows, AgentFile f) {
        FolderFile full = rows.file(f.file().userId(), f.file().id()).orElse(f.file());
        return new AgentFile(f.folder(), full, f.open(), f.offset(), f.length(), f.lastAccessedAt());
    }

    private static FileState state(Scope agent, AgentFile f) {
        return new FileState(agent.userId(), agent.agentId(), f.file().id(), f.folder().id(), f.open(), f.offset(), f.length(),
                f.lastAccessedAt().orElse(Instant.EPOCH));
    }

    private static AgentFile attachedFile(Rows rows, Scope agent, String fileId) {
        return heads(rows, agent).stream().filter(f -> f.file().id().equals(fileId)).findFirst()
                .orElseThrow(() -> new NotFoundException("File '" + fileId + "' is not in a folder attached to agent '"
                        + agent.agentId() + "'."));
    }

    private static Folder ownFolder(Rows rows, String userId, String id) {
        return rows.folder(userId, id).orElseThrow(() -> new NotFoundException("Folder '" + id + "' not found."));
    }
}

package dev.engram.memory;

import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Archives shared by agents ({@link Archive}, Letta's archives): named collections of passages a user keeps and attaches
 * to any of the user's agents, whose archival search then covers them beside the agent's own archival memory. Every
 * method takes the user, and nothing of another user's is there: another user's archive is "not found" and cannot be
 * attached to, listed or written. Passages are archival entries in the archive's {@linkplain Archive#scope() scope}: they
 * count against the user's quotas and appear in the change log (and so in the search index) like any other.
 *
 * <p>Backends keep archives through the optional archive methods of {@link dev.engram.memory.spi.Rows}; over a backend
 * without them every method here throws {@link UnsupportedOperationException}, except {@link #attached}, which is empty
 * (an agent's search then covers its own memory alone).
 */
public final class ArchiveStore {
    /** The most archives one user keeps. */
    public static final int MAX_PER_USER = 1_000;
    /** The most archives attached to one agent. */
    public static final int MAX_PER_AGENT = 100;

    private final StoreCore store;
    private final ArchivalStore archival;

    ArchiveStore(StoreCore store, ArchivalStore archival) {
        this.store = store;
        this.archival = archival;
    }

    /**
     * Creates an archive of the user.
     *
     * @throws IllegalArgumentException if the name is blank or too long, the description too long, or the user already
     *                                  keeps {@link #MAX_PER_USER} archives; nothing is stored then
     */
    public Archive create(String userId, String name, String description) {
        Checks.id(userId, "user id");
        Archive.checkName(name);
        Archive.checkDescription(description);
        return store.write(rows -> {
            if (rows.listArchives(userId).size() >= MAX_PER_USER) {
                throw new IllegalArgumentException("user '" + userId + "' already keeps " + MAX_PER_USER
                        + " archives; delete one, or add passages to an existing one");
            }
            java.time.Instant now = store.now();
            Archive a = new Archive(Archive.ID_PREFIX + UUID.randomUUID(), userId, name, description, now, now);
            rows.putArchive(a);
            return a;
        });
    }

    /** The user's archive of that id; empty for an id that is not the user's. */
    public Optional<Archive> get(String userId, String id) {
        Checks.id(userId, "user id");
        Checks.notNull(id, "archive id");
        return store.read(rows -> rows.archive(userId, id));
    }

    /** The user's archives, oldest first. */
    public List<Archive> list(String userId) {
        Checks.id(userId, "user id");
        return store.read(rows -> rows.listArchives(userId));
    }

    /**
     * Gives the user's archive a new name and description (pass the current ones to keep them).
     *
     * @throws NotFoundException        if the user has no such archive
     * @throws IllegalArgumentException if the name or description is not valid; nothing is changed then
     */
    public Archive update(String userId, String id, String name, String description) {
        Checks.id(userId, "user id");
        Checks.notNull(id, "archive id");
        Archive.checkName(name);
        Archive.checkDescription(description);
        return store.write(rows -> {
            Archive a = rows.archive(userId, id).orElseThrow(() -> noArchive(id));
            if (a.name().equals(name) && a.description().equals(description)) {
                return a;
            }
            Archive next = new Archive(a.id(), a.userId(), name, description, a.createdAt(), store.now());
            rows.putArchive(next);
            for (String agentId : rows.archiveAgents(userId, id)) {
                logAttachment(rows, userId, id, agentId, ChangeEvent.Op.UPSERT); // the agents' prompts name it
            }
            return next;
        });
    }

    /**
     * Deletes the user's archive with its passages (each one's deletion in the change log, so the search index drops it)
     * and its attachments: no agent finds its passages any more. Returns whether there was one.
     */
    public boolean delete(String userId, String id) {
        Checks.id(userId, "user id");
        Checks.notNull(id, "archive id");
        return store.write(rows -> {
            Optional<Archive> a = rows.archive(userId, id);
            if (a.isEmpty()) {
                return false;
            }
            List<NewChange> changes = new ArrayList<>();
            for (String agentId : rows.archiveAgents(userId, id)) {
                changes.add(attachment(userId, id, agentId, ChangeEvent.Op.DELETE));
            }
            for (String passage : rows.deleteAllArchival(a.get().scope())) {
                changes.add(new NewChange(ChangeEvent.Entity.ARCHIVAL, passage, ChangeEvent.Op.DELETE, userId, Optional.of(id)));
            }
            rows.deleteArchive(userId, id);
            if (!changes.isEmpty()) {
                rows.appendChanges(changes);
            }
            return true;
        });
    }

    /**
     * Attaches the user's archive to the user's agent {@code agent}: the agent's archival search covers it from now on.
     * Returns whether it was attached now ({@code false}: it already was).
     *
     * @throws NotFoundException        if the user has no such archive or no such agent
     * @throws IllegalArgumentException if the agent already has {@link #MAX_PER_AGENT} archives attached
     */
    public boolean attach(Scope agent, String archiveId) {
        Checks.notNull(agent, "agent");
        Checks.notNull(archiveId, "archive id");
        return store.write(rows -> {
            rows.archive(agent.userId(), archiveId).orElseThrow(() -> noArchive(archiveId));
            rows.agent(agent).orElseThrow(() -> MemoryErrors.noAgent(agent));
            List<Archive> attached = rows.agentArchives(agent);
            if (attached.stream().anyMatch(a -> a.id().equals(archiveId))) {
                return false;
            }
            if (attached.size() >= MAX_PER_AGENT) {
                throw new IllegalArgumentException("agent '" + agent.agentId() + "' already has " + MAX_PER_AGENT
                        + " archives attached; detach one first");
            }
            rows.attachArchive(agent.userId(), archiveId, agent.agentId(), store.now());
            logAttachment(rows, agent.userId(), archiveId, agent.agentId(), ChangeEvent.Op.UPSERT);
            return true;
        });
    }

    /**
     * Detaches the archive from the agent: its next search no longer covers it. Returns whether it was attached.
     *
     * @throws NotFoundException if the user has no such archive
     */
    public boolean detach(Scope agent, String archiveId) {
        Checks.notNull(agent, "agent");
        Checks.notNull(archiveId, "archive id");
        return store.write(rows -> {
            rows.archive(agent.userId(), archiveId).orElseThrow(() -> noArchive(archiveId));
            boolean was = rows.detachArchive(agent.userId(), archiveId, agent.agentId());
            if (was) {
                logAttachment(rows, agent.userId(), archiveId, agent.agentId(), ChangeEvent.Op.DELETE);
            }
            return was;
        });
    }

    /**
     * The archives attached to the agent, the earliest attached first: what its archival search covers beside its own
     * memory. Empty over a backend that keeps no archives.
     */
    public List<Archive> attached(Scope agent) {
        Checks.notNull(agent, "agent");
        return store.read(rows -> {
            try {
                return rows.agentArchives(agent);
            } catch (UnsupportedOperationException noArchives) {
                return List.<Archive>of();
            }
        });
    }

    /**
     * The agents the user's archive is attached to, the earliest attached first.
     *
     * @throws NotFoundException if the user has no such archive
     */
    public List<String> agents(String userId, String archiveId) {
        Checks.id(userId, "user id");
        Checks.notNull(archiveId, "archive id");
        return store.read(rows -> {
            rows.archive(userId, archiveId).orElseThrow(() -> noArchive(archiveId));
            return rows.archiveAgents(userId, archiveId);
        });
    }

    /**
     * Adds passages to the user's archive, all or none, in one unit of work (as {@link ArchivalStore#insertAll}: the
     * same size limits and quotas).
     *
     * @throws NotFoundException if the user has no such archive; nothing is stored then
     */
    public List<ArchivalEntry> insert(String userId, String archiveId, List<NewArchivalEntry> passages) {
        Checks.id(userId, "user id");
        Checks.notNull(archiveId, "archive id");
        Checks.noNulls(passages, "passages");
        return store.inTransaction(() -> {
            Archive a = store.read(rows -> rows.archive(userId, archiveId)).orElseThrow(() -> noArchive(archiveId));
            return archival.insertAll(a.scope(), passages);
        });
    }

    /**
     * The archive's current passages, newest first; {@code offset} not negative, {@code limit} positive.
     *
     * @throws NotFoundException if the user has no such archive
     */
    public List<ArchivalEntry> passages(String userId, String archiveId, int offset, int limit) {
        Checks.id(userId, "user id");
        Checks.notNull(archiveId, "archive id");
        MemoryErrors.checkPaging(offset, limit);
        return store.read(rows -> rows.listArchival(rows.archive(userId, archiveId)
                .orElseThrow(() -> noArchive(archiveId)).scope(), offset, limit));
    }

    /**
     * Deletes one passage of the user's archive; returns whether the archive had it.
     *
     * @throws NotFoundException if the user has no such archive
     */
    public boolean deletePassage(String userId, String archiveId, String passageId) {
        Checks.id(userId, "user id");
        Checks.notNull(archiveId, "archive id");
        Checks.notNull(passageId, "passage id");
        return store.inTransaction(() -> {
            Archive a = store.read(rows -> rows.archive(userId, archiveId)).orElseThrow(() -> noArchive(archiveId));
            return archival.delete(a.scope(), passageId);
        });
    }

    private static NotFoundException noArchive(String id) {
        return new NotFoundException("There is no archive '" + id + "'; list them to see their ids.");
    }

    /**
     * An archive attached to, detached from or renamed for an agent, in the change log: an {@code ARCHIVAL} event of the
     * agent whose id is the archive's (no entry of the agent's archival memory has it, so an index loads nothing and
     * drops nothing), which tells a reader that keeps the agent's prompt that the archives it names changed.
     */
    private static NewChange attachment(String userId, String archiveId, String agentId, ChangeEvent.Op op) {
        return new NewChange(ChangeEvent.Entity.ARCHIVAL, archiveId, op, userId, Optional.of(agentId));
    }

    private static void logAttachment(Rows rows, String userId, String archiveId, String agentId, ChangeEvent.Op op) {
        rows.appendChanges(List.of(attachment(userId, archiveId, agentId, op)));
    }
}

package dev.engram.memory;

import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.Rows;
import dev.engram.memory.sqlite.SqliteBackend;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Everything an agent remembers: core memory {@linkplain #blocks() blocks}, {@linkplain #archival()
 * archival} entries, per-user {@linkplain #notes() notes}, {@linkplain #agents() agent definitions},
 * the {@linkplain #messages() conversation} (recall memory), per-scope {@linkplain #stats statistics},
 * and a {@linkplain #changes() change log} that derived indexes follow.
 *
 * <p>Every operation takes a {@link Scope} (notes: a user id) and none can reach outside it: an id
 * or label that exists only in another scope is "not found". Every write is atomic and, once the
 * call returns, durable; each appends one event per changed item to the change log. A write that is
 * rejected (bad input, a limit, a stale version, a missing item) throws and changes nothing.
 *
 * <p>The rules live here, once; the rows live in a {@link MemoryBackend}: the embedded SQLite file
 * ({@link #sqlite(Path)}), maps in memory ({@link #inMemory()}), or a backend of your own
 * ({@link #over(MemoryBackend)}). Thread-safe.
 *
 * <p>Several writes become one with {@link #inTransaction}, as Jdbi's {@code inTransaction} does: every
 * call on this store's sub-stores made on the same thread inside it joins one transaction, which commits
 * when the callback returns and leaves no row and no change-log entry when it throws.
 */
public final class MemoryStore implements AutoCloseable {
    private final StoreCore core;
    private final BlockStore blocks;
    private final ArchivalStore archival;
    private final NoteStore notes;
    private final AgentStore agents;
    private final MessageStore messages;
    private final ChangeLog changes;
    private final ScheduleStore schedules;
    private final KeyStore keys;
    private final IdentityStore identities;
    private final ConversationStore conversations;
    private final ProviderStore providers;
    private final McpServerStore mcpServers;
    private final CustomToolStore customTools;
    private final RunStore runs;
    private final WorkStateStore work;
    private final CanvasStore canvases;
    private final JobStore jobs;
    private final FolderStore folders;
    private final ArchiveStore archives;
    private final GroupStore groups;

    private MemoryStore(MemoryBackend backend, Clock clock, MemoryLimits limits) {
        this(new StoreCore(Objects.requireNonNull(backend, "backend must not be null"),
                Objects.requireNonNull(clock, "clock must not be null"), Objects.requireNonNull(limits, "limits must not be null")),
                null);
    }

    /** A store over {@code core}; {@code changes} is the log of the store it is a view of, or null for a new store. */
    private MemoryStore(StoreCore core, ChangeLog changes) {
        this.core = core;
        this.blocks = new BlockStore(core);
        this.archival = new ArchivalStore(core);
        this.notes = new NoteStore(core);
        this.agents = new AgentStore(core);
        this.messages = new MessageStore(core);
        this.changes = changes != null ? changes : new ChangeLog(core);
        this.schedules = new ScheduleStore(core);
        this.keys = new KeyStore(core);
        this.identities = new IdentityStore(core);
        this.conversations = new ConversationStore(core);
        this.providers = new ProviderStore(core);
        this.mcpServers = new McpServerStore(core);
        this.customTools = new CustomToolStore(core);
        this.runs = new RunStore(core);
        this.work = new WorkStateStore(core);
        this.canvases = new CanvasStore(core);
        this.jobs = new JobStore(core);
        this.folders = new FolderStore(core);
        this.archives = new ArchiveStore(core, archival);
        this.groups = new GroupStore(core);
    }

    /** The store over your own backend, with the system clock. */
    public static MemoryStore over(MemoryBackend backend) {
        return over(backend, Clock.systemUTC());
    }

    /** The store over your own backend; {@code clock} stamps every write. */
    public static MemoryStore over(MemoryBackend backend, Clock clock) {
        return over(backend, clock, MemoryLimits.defaults());
    }

    /** The store over your own backend, refusing texts over {@code limits}. */
    public static MemoryStore over(MemoryBackend backend, Clock clock, MemoryLimits limits) {
        return new MemoryStore(backend, clock, limits);
    }

    /** The embedded store in a SQLite file (created if missing), with default options. */
    public static MemoryStore sqlite(Path file) {
        return sqlite(SqliteOptions.builder(file).build());
    }

    /** The embedded store with explicit options. */
    public static MemoryStore sqlite(SqliteOptions options) {
        return over(SqliteBackend.open(options), options.clock());
    }

    /** A store held in memory only: for tests and experiments, lost on close. */
    public static MemoryStore inMemory() {
        return over(new InMemoryBackend());
    }

    /** A store held in memory only, whose writes {@code clock} stamps (e.g. to replay a dated conversation). */
    public static MemoryStore inMemory(Clock clock) {
        return over(new InMemoryBackend(), clock);
    }

    /**
     * Runs {@code work} as one unit of work and returns its result: every call on this store (its blocks,
     * archival memory, notes, agents, messages, schedules, keys, identities) made on this thread until
     * {@code work} returns joins one transaction of the backend. It commits when {@code work} returns: all
     * its writes become visible together, and their change-log events appear together and in order. When
     * {@code work} throws, nothing it wrote is kept, no change-log event of it is ever seen (a search index
     * following {@link #changes()} never learns of it), and the exception reaches the caller unchanged.
     *
     * <p>Calls inside an open unit join it: a nested {@code inTransaction} is part of the outer one and
     * commits with it. A store call (or a nested unit) that throws inside a unit spoils it: even if {@code work} catches
     * that exception, the unit rolls back and this throws a {@link MemoryException} naming it (a write
     * may have failed half-way). Only the calling thread joins: work handed to another thread runs
     * outside the unit, and a write there waits until the unit ends, so do not wait for it inside.
     * Other threads' writes wait for the unit to end; their reads see only committed data.
     *
     * @param work receives this store, for convenience: {@code store.inTransaction(tx -> tx.agents().create(...))}
     * @throws MemoryException if the store is closed, the storage failed, or a store call inside failed
     *                         and {@code work} went on
     */
    public <R> R inTransaction(Function<MemoryStore, R> work) {
        Objects.requireNonNull(work, "work must not be null");
        return core.inTransaction(() -> work.apply(this));
    }

    /** {@link #inTransaction(Function)} for work that returns nothing. */
    public void useTransaction(Consumer<MemoryStore> work) {
        Objects.requireNonNull(work, "work must not be null");
        core.inTransaction(() -> {
            work.accept(this);
            return null;
        });
    }

    /**
     * Whether {@link #attempt} is available: this store's backend can undo part of a unit of work (SQLite can; a
     * backend says so with {@link MemoryBackend#savepoints()}).
     */
    public boolean supportsAttempts() {
        return core.attempts();
    }

    /**
     * Inside a unit of work ({@link #inTransaction}), runs {@code work} so that what it writes can be undone without the
     * unit's other writes: they stay, to commit with the unit, when {@code work} returns a result that {@code keep}
     * accepts and no store call inside it failed; otherwise they are undone and the unit goes on (a store call that failed
     * inside does not spoil it: what it wrote is gone). Use it for a step of your own that may fail half-way, such as a
     * tool that writes and then throws. When {@code work} throws, its writes are undone and the exception spoils the unit
     * and reaches the caller.
     *
     * @throws IllegalStateException if no unit of work is open on this thread, or the backend cannot undo part of one
     *                               ({@link #supportsAttempts()}); nothing runs then
     */
    public <R> Attempt<R> attempt(Supplier<R> work, Predicate<R> keep) {
        Objects.requireNonNull(work, "work must not be null");
        Objects.requireNonNull(keep, "keep must not be null");
        return core.attempt(work, keep);
    }

    /** Whether the calling thread is inside a unit of work of this store ({@link #inTransaction}). */
    public boolean isInTransaction() {
        return core.inUnit();
    }

    /** Core memory blocks of each agent, with history, sharing and paging to archival memory. */
    public BlockStore blocks() {
        return blocks;
    }

    /** Archival memory of each agent. */
    public ArchivalStore archival() {
        return archival;
    }

    /** Notes of each user. */
    public NoteStore notes() {
        return notes;
    }

    /** Agent definitions, one per scope. */
    public AgentStore agents() {
        return agents;
    }

    /** Conversation messages (recall memory) of each agent and user. */
    public MessageStore messages() {
        return messages;
    }

    /** Scheduled messages of each agent, listed and cancelled per user. */
    public ScheduleStore schedules() {
        return schedules;
    }

    /** The Engram server's API keys, each bound to a user or an admin key, stored hashed. */
    public KeyStore keys() {
        return keys;
    }

    /** The server's identities: a display name and kind per user (Letta's identities). */
    public IdentityStore identities() {
        return identities;
    }

    /** The conversations of each user's agents: several with one agent over the same memory (Letta's conversations). */
    public ConversationStore conversations() {
        return conversations;
    }

    /** The model providers an operator registered with the server, their credentials sealed. */
    public ProviderStore providers() {
        return providers;
    }

    /** The MCP servers each user registered, their secrets sealed. */
    public McpServerStore mcpServers() {
        return mcpServers;
    }

    /** The tools each user wrote from source (Letta's custom tools). */
    public CustomToolStore customTools() {
        return customTools;
    }

    /** The runs of each user's agents (Letta's runs) and the events of the streamed ones, kept for a client to resume. */
    public RunStore runs() {
        return runs;
    }

    /** What each agent is working on: its task list and its goals, with their checkpoints and decisions. */
    public WorkStateStore work() {
        return work;
    }

    /** The canvas artefacts of each user's agents: versioned HTML documents an agent writes for its user to open. */
    public CanvasStore canvases() {
        return canvases;
    }

    /** The background jobs of each user (Letta's jobs), kept from acceptance on so that none is lost in a crash. */
    public JobStore jobs() {
        return jobs;
    }

    /** Each user's folders of uploaded files, their text and their searchable passages (Letta's folders and sources). */
    public FolderStore folders() {
        return folders;
    }

    /** Each user's archives: collections of passages shared by the agents they are attached to (Letta's archives). */
    public ArchiveStore archives() {
        return archives;
    }

    /** Each user's multi-agent groups: several of the user's agents answering together (Letta's groups). */
    public GroupStore groups() {
        return groups;
    }

    /** The clock that stamps every write and says when a {@linkplain #schedules() schedule} is due. */
    public Clock clock() {
        return core.clock();
    }

    /** The largest texts this store accepts (a message, an archival entry, a note): check a text before a write that would refuse it. */
    public MemoryLimits limits() {
        return core.limits();
    }

    /** The change log, in commit order. */
    public ChangeLog changes() {
        return changes;
    }

    /**
     * This store, enforcing {@code quotas}: a view over the same backend, units of work, change log and open state (closing
     * either closes both) whose writes (from any caller: an API, an agent's tools, an import) each count the user's usage
     * inside their own transaction and are refused with a {@link QuotaExceededException}, storing nothing, when they would
     * take the user past a quota. Writes are serialised by the backend (on PostgreSQL across processes too), so
     * concurrent writers can never pass a quota together. Growth only is checked: deleting, shrinking and writes
     * that add nothing always pass, even for a user already past a quota (one lowered since). This store itself keeps
     * its own quotas ({@link UserQuotas#unlimited()} unless it is such a view).
     */
    public MemoryStore withQuotas(UserQuotas quotas) {
        Objects.requireNonNull(quotas, "quotas must not be null");
        return new MemoryStore(core.withQuotas(quotas), changes);
    }

    /** The quotas this store enforces ({@link #withQuotas}); {@link UserQuotas#unlimited()} for a store without. */
    public UserQuotas quotas() {
        return core.quotas();
    }

    /** What the user keeps (agents, blocks, archival entries, notes and their bytes), counted for quotas. */
    public UserUsage usage(String userId) {
        Checks.id(userId, "user id");
        return core.read(rows -> rows.usage(userId));
    }

    /** Counts for the scope's prompt statistics. */
    public MemoryStats stats(Scope scope) {
        Checks.notNull(scope, "scope");
        return core.read(rows -> rows.stats(scope));
    }

    /** The storage's identity (see {@link Rows#storeId()}); empty if the backend has none. */
    public String id() {
        return core.read(Rows::storeId);
    }

    /** The backend this store keeps its rows in. */
    public MemoryBackend backend() {
        return core.backend();
    }

    /** Releases the backend's connections and files; further calls fail. Idempotent. */
    @Override
    public void close() {
        if (core.close()) {
            core.backend().close();
        }
    }

    @Override
    public String toString() {
        return "MemoryStore[" + core.backend() + "]";
    }
}

package dev.engram.memory.postgres;

import dev.engram.memory.Run;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.jdbi.v3.core.Handle;

/**
 * The locks of one write transaction, taken as its rows are touched: a user's lock before the first operation on that
 * user's rows, the whole database's before an operation that is not one user's, so that writes of different users run
 * at once (in any number of processes) and writes of one user, or of no user, one after the other, as the store's rules
 * need (it reads, checks and writes inside one write and relies on nothing changing in between).
 *
 * <p>The locks are PostgreSQL transaction-scoped advisory locks, released after the commit is durable and visible: the
 * database lock {@link #DATABASE} (the one every write of older Engram versions takes, exclusively), which a user's
 * write holds shared and a database-wide one exclusively, and a lock per user in the two-key space (never the key of a
 * {@link PostgresLocks} turn lock). An operation's user comes from its arguments: a {@link Scope}, a first argument
 * that is a user id, a record with a {@code userId} or {@code scope}, records of one user in a list, a run id (its
 * run's user); anything else (keys, providers, lookups by id, sweeps) is database-wide.
 *
 * <p>No deadlock among writes: a write's transaction waits for a lock only while it holds none; holding some, it only
 * tries, and a write that cannot have what it needs is taken back ({@link Retry}) and run again in a transaction of
 * its own. A unit of work ({@link #forUnit}) takes its locks the same way, as it touches rows (a step's unit touches one
 * user's rows, so units of different users run at once), but it runs its caller's code and cannot be run again: holding
 * some locks it waits for the next one. A cycle of waits therefore needs two units that each hold a lock the other
 * needs (two units each touching two users, in opposite order, at the same moment); PostgreSQL's deadlock detector
 * breaks it by failing one of them (SQLSTATE 40P01, see {@link PostgresFailures}), which is rolled back whole. A write
 * never waits holding a lock, so it is never part of such a cycle. The change log's entries are kept aside and
 * inserted at commit under {@link #CHANGE_LOG} (see {@link GroupCommit}), so that their sequence numbers commit in order
 * even though writes no longer do.
 */
final class WriteLocks {
    /** The database-wide write lock ("engram"): shared by a user's writes, exclusive for the others. */
    static final long DATABASE = 0x656e6772616dL;
    /** Held from the change log's insert to the commit: sequence numbers are taken in commit order. */
    static final long CHANGE_LOG = 0x656e6772616d6cL;
    /** The first key of every user lock (two-key advisory locks never meet one-key ones). */
    static final int USER_SPACE = 0x656e6775;
    /** First arguments that are user ids, by method name (the SPI has no overloads). */
    private static final Set<String> USER_FIRST = Set.of("agentsByName", "archive", "archiveAgents", "attachArchive",
            "attachFolder", "countNotes", "countPassages", "deleteArchive", "deleteFile", "deleteFolder", "deleteGroup",
            "deleteIdentity", "deleteNote", "detachArchive", "detachFolder", "file", "folder", "folderAgents", "group",
            "identity", "latestRun", "listAgents", "listArchives", "listConversations", "listCustomTools", "listFileHeads",
            "listFiles", "listFolders", "listGroups", "listJobs", "listNotes", "listPassages", "listSchedules", "note",
            "noteSuperseding", "passage", "passageIds", "schedule", "usage", "userRuns", "userSteps");
    /** First arguments that are run ids: the run's user. */
    private static final Set<String> RUN_FIRST = Set.of("run", "appendRunEvents", "runEvents", "lastRunSeq",
            "deleteRunEvents", "deleteRun", "runSteps");
    /** Change log reads and the store's identity: no lock (they read committed rows only). */
    private static final Set<String> FREE = Set.of("changesSince", "userChangesSince", "lastChangeSeq", "storeId");
    private static final Map<Class<?>, Optional<RecordComponent>> OWNER = new ConcurrentHashMap<>();
    /** What a write needs: a user, the whole database, or nothing. */
    private static final String DATABASE_WIDE = "\u0000database";

    /** A write that needs a lock another transaction holds while its own transaction holds others: run it again alone. */
    static final class Retry extends Error {
        static final Retry INSTANCE = new Retry();

        private Retry() {
            super("the write needs a lock held elsewhere; it runs again in a transaction of its own", null, false, false);
        }
    }

    /** Implemented by the rows of {@link #rows}: the plain rows under them, which take no lock (for tests). */
    interface Unlocked {
        PostgresRows unlocked();
    }

    private enum Mode { NONE, SHARED, EXCLUSIVE }

    private final Handle h;
    /** The statements held back to go with the next one: locks and savepoints ({@link Ahead}). */
    private final Ahead ahead = new Ahead();
    private final Map<String, String> runOwners;
    /** Whether this is a unit of work's transaction: it waits for a lock even while holding others (see the class comment). */
    private boolean unit;
    private Mode mode = Mode.NONE;
    private final Set<Integer> users = new HashSet<>();
    /** What the writes kept so far hold: a write taken back to its savepoint gave up every lock it took (PostgreSQL). */
    private Mode keptMode = Mode.NONE;
    private final Set<Integer> keptUsers = new HashSet<>();
    /** Change-log entries of the writes kept so far, and of the write running now. */
    private final List<NewChange> changes = new ArrayList<>();
    private final List<NewChange> running = new ArrayList<>();

    /**
     * @param runOwners the users of runs already looked up (a run's user never changes), shared by the backend's writes
     */
    WriteLocks(Handle h, Map<String, String> runOwners) {
        this.h = h;
        this.runOwners = runOwners;
    }

    /**
     * Makes this a unit of work's transaction: it runs its caller's code and cannot be run again, so instead of being
     * taken back when a lock it needs is held elsewhere, it waits for it.
     */
    void forUnit() {
        unit = true;
    }

    /**
     * Takes the database lock exclusively, waiting for it: for a write run again alone after a {@link Retry}. Like every
     * lock that is waited for, it is held back to go with the next statement ({@link Ahead}).
     */
    void lockDatabase() {
        ahead.add("SELECT pg_advisory_xact_lock(?)", DATABASE);
        mode = Mode.EXCLUSIVE;
    }

    /** What this transaction holds back for its next statement. */
    Ahead ahead() {
        return ahead;
    }

    /** Rows on this transaction's handle, whose statements carry what is held back. */
    PostgresRows plainRows() {
        return new PostgresRows(h, ahead);
    }

    /** Rows whose every operation first takes the lock it needs (see the class comment). */
    Rows rows(PostgresRows target) {
        InvocationHandler handler = (proxy, m, args) -> invoke(target, m, args);
        return (Rows) Proxy.newProxyInstance(WriteLocks.class.getClassLoader(), new Class<?>[] {Rows.class, Unlocked.class},
                handler);
    }

    /**
     * The running write was kept: its change-log entries go with the transaction; the writes that join it after a unit
     * of work are plain writes (they try, and are run again).
     */
    void kept() {
        unit = false;
        changes.addAll(running);
        running.clear();
        keptMode = mode;
        keptUsers.addAll(users);
    }

    /**
     * The running write was taken back to its savepoint: so are its change-log entries, and the locks it took, which
     * PostgreSQL released with the rollback (a later write of the transaction that needs one takes it again).
     */
    void discarded() {
        running.clear();
        mode = keptMode;
        users.retainAll(keptUsers);
    }

    /**
     * {@link Rows#savepoint} inside a unit of work, on PostgreSQL's {@code SAVEPOINT}: a nested one of the same name hides
     * the outer one until released, and {@code ROLLBACK TO} undoes the innermost (and ends the aborted state a failed
     * statement leaves), which stays open, so it is released after. What the undone part took is forgotten with it:
     * its locks, which PostgreSQL releases with the rollback, and its change-log entries.
     */
    private boolean savepoint(BooleanSupplier work) {
        Mode modeBefore = mode;
        Set<Integer> usersBefore = Set.copyOf(users);
        int runningBefore = running.size();
        ahead.savepoint("engram_part");
        boolean keep;
        try {
            keep = work.getAsBoolean();
        } catch (RuntimeException | Error e) {
            forget(modeBefore, usersBefore, runningBefore);
            try {
                ahead.rollbackTo(h.getConnection(), "engram_part", true);
            } catch (RuntimeException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        if (keep) {
            ahead.release("engram_part");
        } else {
            forget(modeBefore, usersBefore, runningBefore);
            ahead.rollbackTo(h.getConnection(), "engram_part", true);
        }
        return keep;
    }

    private void forget(Mode modeBefore, Set<Integer> usersBefore, int runningBefore) {
        mode = modeBefore;
        users.retainAll(usersBefore);
        running.subList(runningBefore, running.size()).clear();
    }

    /**
     * Inserts the change-log entries of the transaction's writes, in order, under {@link #CHANGE_LOG}, and commits: the
     * lock, the insert and the {@code COMMIT} go in one round trip (three statements sent together; a failed insert
     * leaves the transaction aborted and uncommitted, for the caller to roll back). The handle's own commit after it
     * then finds nothing to commit (the driver sends nothing for a transaction already ended). Without entries, nothing
     * is sent and the caller commits as usual. What is still held back ({@link Ahead}: locks and savepoints with nothing
     * run after them) is dropped: it would change nothing.
     */
    void insertChangesAndCommit() {
        ahead.clear();
        if (changes.isEmpty()) {
            return;
        }
        for (int from = 0; from < changes.size(); from += 1_000) {
            int to = Math.min(changes.size(), from + 1_000);
            List<NewChange> part = changes.subList(from, to);
            StringBuilder sql = new StringBuilder(from == 0 ? "SELECT pg_advisory_xact_lock(?); " : "");
            sql.append("INSERT INTO changes (entity, entity_id, op, user_id, agent_id) VALUES ");
            List<Object> args = new ArrayList<>();
            if (from == 0) {
                args.add(CHANGE_LOG);
            }
            for (NewChange c : part) {
                sql.append(args.size() <= 1 ? "" : ", ").append("(?, ?, ?, ?, ?)");
                args.add(c.entity().name());
                args.add(c.id());
                args.add(c.op().name());
                args.add(c.userId());
                args.add(c.agentId().orElse(null));
            }
            if (to == changes.size()) {
                sql.append("; COMMIT");
            }
            run(sql.toString(), args.toArray());
        }
        changes.clear();
    }

    private Object invoke(PostgresRows target, Method m, Object[] args) throws Throwable {
        if (m.getDeclaringClass() == Object.class) {
            return m.invoke(target, args);
        }
        String name = m.getName();
        if (m.getDeclaringClass() == Unlocked.class) {
            return target;
        }
        if (name.equals("savepoint")) {
            return savepoint((BooleanSupplier) args[0]);
        }
        if (name.equals("appendChanges")) {
            @SuppressWarnings("unchecked")
            List<NewChange> added = (List<NewChange>) args[0];
            running.addAll(added);
            return null;
        }
        if (!FREE.contains(name)) {
            need(owner(name, args));
        }
        if (args != null && args.length == 1 && args[0] instanceof Run r) {
            knownRun(r.id(), r.userId()); // its later writes by id need not look its user up
        }
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Takes what {@code owner} needs: a user's lock, the database's ({@link #DATABASE_WIDE}), or nothing (null). */
    private void need(String owner) {
        if (owner == null || mode == Mode.EXCLUSIVE) {
            return;
        }
        if (owner.equals(DATABASE_WIDE)) {
            if (mode == Mode.NONE || unit) {
                lockDatabase(); // a unit holding its users' locks (and the database's shared) waits for the upgrade
            } else if (tryLock("SELECT pg_try_advisory_xact_lock(?)", DATABASE)) {
                mode = Mode.EXCLUSIVE;
            } else {
                throw Retry.INSTANCE;
            }
            return;
        }
        int key = owner.hashCode();
        if (users.contains(key)) {
            return;
        }
        if (mode == Mode.NONE) {
            ahead.add("SELECT pg_advisory_xact_lock_shared(?), pg_advisory_xact_lock(?, ?)", DATABASE, USER_SPACE, key);
            mode = Mode.SHARED;
        } else if (unit) {
            ahead.add("SELECT pg_advisory_xact_lock(?, ?)", USER_SPACE, key);
        } else if (!tryLock("SELECT pg_try_advisory_xact_lock(?, ?)", USER_SPACE, key)) {
            throw Retry.INSTANCE;
        }
        users.add(key);
    }

    /** Runs a statement of this transaction's on its connection ({@link Statements}). */
    private void run(String sql, Object... args) {
        Statements.exec(h.getConnection(), sql, args);
    }

    private boolean tryLock(String sql, Object... args) {
        return plainRows().one(sql, (rs, c) -> rs.getBoolean(1), args).orElseThrow();
    }

    /** The user whose rows the operation touches, {@link #DATABASE_WIDE}, or null for an empty list (no rows). */
    private String owner(String name, Object[] args) {
        if (args == null || args.length == 0) {
            return DATABASE_WIDE;
        }
        Object first = args[0];
        if (first instanceof String s) {
            if (USER_FIRST.contains(name)) {
                return s;
            }
            return RUN_FIRST.contains(name) ? runOwner(s) : DATABASE_WIDE;
        }
        if (first instanceof List<?> list) {
            String user = null;
            for (Object o : list) {
                String u = recordOwner(o);
                if (u == null || (user != null && !user.equals(u))) {
                    return DATABASE_WIDE;
                }
                user = u;
            }
            return user;
        }
        String u = recordOwner(first);
        return u == null ? DATABASE_WIDE : u;
    }

    private String runOwner(String runId) {
        String known = runOwners.get(runId);
        if (known != null) {
            return known;
        }
        Optional<String> user = plainRows().one("SELECT user_id FROM runs WHERE id = ?", (rs, c) -> rs.getString(1), runId);
        if (user.isEmpty()) {
            return DATABASE_WIDE; // no such run (yet): nothing to go by
        }
        knownRun(runId, user.get());
        return user.get();
    }

    private void knownRun(String runId, String user) {
        if (runOwners.size() > 100_000) {
            runOwners.clear();
        }
        runOwners.put(runId, user);
    }

    /** A scope's user, or a record's {@code userId} (a string) or {@code scope}; null when it has neither. */
    private static String recordOwner(Object o) {
        if (o instanceof Scope s) {
            return s.userId();
        }
        if (o == null || !o.getClass().isRecord()) {
            return null;
        }
        Optional<RecordComponent> c = OWNER.computeIfAbsent(o.getClass(), WriteLocks::ownerComponent);
        if (c.isEmpty()) {
            return null;
        }
        try {
            Object v = c.get().getAccessor().invoke(o);
            return v instanceof Scope s ? s.userId() : (String) v;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c.get().getName() + " of " + o.getClass().getSimpleName(), e);
        }
    }

    private static Optional<RecordComponent> ownerComponent(Class<?> type) {
        for (RecordComponent c : type.getRecordComponents()) {
            if ((c.getName().equals("userId") && c.getType() == String.class)
                    || (c.getName().equals("scope") && c.getType() == Scope.class)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}

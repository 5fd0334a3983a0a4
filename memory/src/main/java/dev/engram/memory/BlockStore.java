package dev.engram.memory;

import dev.engram.memory.spi.Rows;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Core memory blocks. A label names a block within one agent; a block can be shared with other
 * agents of the same user, who then see it under the same label with the share's permission.
 *
 * <p>Writes take an expected version for optimistic locking: pass {@link #ANY_VERSION} to write
 * whatever the current version is (the write is still atomic), or the version you read to fail with
 * {@link VersionConflictException} if the block changed since. A write that would exceed the block's
 * limit fails with {@link LimitExceededException}; failed writes change nothing.
 *
 * <p>The store enforces scope, limits, versions and ownership. Permissions are the callers' business:
 * decide with {@link Acl} using {@link Block#permission()} before writing (the built-in {@code block}
 * tool does, and its README has the table for archive, load and swap).
 */
public final class BlockStore {
    /** Write whatever the current version is. */
    public static final long ANY_VERSION = -1;

    private final StoreCore store;
    /** Who writes through this view, recorded with each version; empty for the agent itself. */
    private final String origin;

    BlockStore(StoreCore store) {
        this(store, "");
    }

    private BlockStore(StoreCore store, String origin) {
        this.store = store;
        this.origin = origin;
    }

    /**
     * This store, recording {@code origin} with every version it writes: the history then says
     * {@code append by ORIGIN}, e.g. for a sleep-time agent editing another agent's blocks.
     */
    public BlockStore by(String origin) {
        Checks.id(origin, "origin");
        return new BlockStore(store, origin);
    }

    private String operation(String operation) {
        return origin.isEmpty() ? operation : operation + " by " + origin;
    }

    /**
     * Creates a block owned by the scope's agent.
     *
     * @throws DuplicateException     if the agent already has or is shared a block with that label
     * @throws LimitExceededException if its limit is above the store's largest ({@link MemoryLimits})
     */
    public Block create(Scope scope, NewBlock block) {
        Checks.notNull(scope, "scope");
        Checks.notNull(block, "block");
        return store.write(rows -> insert(rows, scope, block, "create"));
    }

    /** The block with that label that the agent owns or, failing that, is shared. */
    public Optional<Block> get(Scope scope, String label) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.read(rows -> rows.block(scope, label));
    }

    /** The blocks the agent owns and is shared, pinned first, then by label. */
    public List<Block> list(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> rows.blocks(scope)).stream()
                .sorted(Comparator.comparing((Block b) -> !b.pinned()).thenComparing(Block::label)).toList();
    }

    /**
     * Appends {@code text} exactly as given (callers add separators).
     *
     * @throws NotFoundException         if the agent has no such block
     * @throws LimitExceededException    if the result would exceed the limit
     * @throws VersionConflictException  if {@code expectedVersion} is not current
     */
    public Block append(Scope scope, String label, String text, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        Checks.unicode(text, "text");
        return store.write(rows -> {
            Block b = require(rows, scope, label);
            return update(rows, scope, b, b.value() + text, expectedVersion, "append");
        });
    }

    /**
     * Appends {@code text} as a line of its own: after a line break unless the block is empty. Appends
     * commute, so this never fails with a version conflict, however many writers append at once.
     *
     * @throws NotFoundException      if the agent has no such block
     * @throws LimitExceededException if the result would exceed the limit
     */
    public Block appendLine(Scope scope, String label, String text) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        Checks.unicode(text, "text");
        return store.write(rows -> {
            Block b = require(rows, scope, label);
            return update(rows, scope, b, b.value().isEmpty() ? text : b.value() + "\n" + text, ANY_VERSION, "append");
        });
    }

    /** Replaces the whole value; same failures as {@link #append}. */
    public Block replace(Scope scope, String label, String value, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        Checks.unicode(value, "value");
        return store.write(rows -> update(rows, scope, require(rows, scope, label), value, expectedVersion, "replace"));
    }

    /**
     * Changes the value, description, limit and permission of a block in one write (one new version in its
     * history). This is an administrator's write, as the server's block endpoints make it: the block's
     * permission governs agents' tools, not this method; a block shared with {@code scope} is changed at its
     * owner, for every agent that sees it.
     *
     * @throws NotFoundException        if the agent has no such block
     * @throws VersionConflictException if {@code expectedVersion} is not current
     * @throws LimitExceededException   if the value is longer than the new limit, or a changed limit is above the
     *                                  store's largest ({@link MemoryLimits}) (nothing changes)
     */
    public Block update(Scope scope, String label, BlockUpdate update, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        Checks.notNull(update, "update");
        return store.write(rows -> {
            Block b = require(rows, scope, label);
            checkVersion(b.label(), expectedVersion, b.version());
            if (update.limit() != b.limit()) {
                store.limits().checkBlockLimit(b.label(), update.limit());
            }
            Block changed = new Block(b.label(), update.description(), b.value(), update.limit(), b.type(),
                    update.permission(), b.pinned(), b.version(), b.ownerAgentId(), b.createdAt(), b.updatedAt());
            return update(rows, scope, changed, update.value(), ANY_VERSION, "update");
        });
    }

    /**
     * Deletes the block (for every agent it is shared with) and its history.
     *
     * @throws NotFoundException         if the agent has no such block
     * @throws VersionConflictException  if {@code expectedVersion} is not current
     */
    public void delete(Scope scope, String label, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        store.write(rows -> {
            Block b = require(rows, scope, label);
            checkVersion(label, expectedVersion, b.version());
            remove(rows, scope, b);
            return null;
        });
    }

    /**
     * Gives one of the agent's own blocks a new label, keeping its value, permission and history (the
     * rename is a version of its own).
     *
     * @throws NotFoundException         if the agent does not own such a block
     * @throws DuplicateException        if the agent already has or is shared a block labelled {@code to}
     * @throws IllegalArgumentException  if the block is shared with other agents (unshare it first), or
     *                                   {@code to} is not a valid label
     * @throws VersionConflictException  if {@code expectedVersion} is not current
     */
    public Block rename(Scope scope, String from, String to, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(from, "label");
        Checks.id(to, "new label");
        return store.write(rows -> {
            Block b = requireOwn(rows, scope, from);
            checkVersion(from, expectedVersion, b.version());
            if (from.equals(to)) {
                return b;
            }
            if (rows.block(scope, to).isPresent()) {
                throw MemoryErrors.duplicateBlock(scope, to);
            }
            List<String> targets = rows.shareTargets(scope, from);
            if (!targets.isEmpty()) {
                throw new IllegalArgumentException("block '" + from + "' is shared with agents " + targets
                        + "; a rename would change it under them: unshare it first");
            }
            rows.renameBlock(scope, from, to);
            StoreCore.record(rows, ChangeEvent.Entity.BLOCK, from, ChangeEvent.Op.DELETE, scope.userId(), scope.agentId());
            Block renamed = require(rows, scope, to);
            return update(rows, scope, renamed, renamed.value(), ANY_VERSION, "rename from '" + from + "'");
        });
    }

    /** Every committed version, oldest first; empty if there is no such block. */
    public List<BlockVersion> history(Scope scope, String label) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.read(rows -> rows.block(scope, label)
                .map(b -> rows.blockVersions(owner(scope, b), label)).orElse(List.of()));
    }

    /**
     * Makes the value of an earlier version the current value, as a new version.
     *
     * @throws NotFoundException if there is no such block or version
     */
    public Block restore(Scope scope, String label, long version, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.write(rows -> {
            Block b = require(rows, scope, label);
            String value = rows.blockVersions(owner(scope, b), label).stream().filter(v -> v.version() == version)
                    .findFirst().orElseThrow(() -> MemoryErrors.noVersion(label, version, b.version())).value();
            return update(rows, scope, b, value, expectedVersion, "restore");
        });
    }

    /**
     * Shares one of the scope agent's own blocks with another agent of the same user, or changes the
     * permission of an existing share.
     *
     * @throws NotFoundException  if the scope's agent does not own such a block
     * @throws DuplicateException if the other agent already has another block with that label
     */
    public void share(Scope owner, String label, String agentId, MemoryPermission permission) {
        Checks.notNull(owner, "owner");
        Checks.notNull(label, "label");
        Checks.id(agentId, "agent id");
        Checks.notNull(permission, "permission");
        if (agentId.equals(owner.agentId())) {
            throw MemoryErrors.selfShare(label);
        }
        store.write(rows -> {
            requireOwn(rows, owner, label);
            Scope target = Scope.of(owner.userId(), agentId);
            Optional<Block> existing = rows.block(target, label);
            if (existing.isPresent() && !existing.get().ownerAgentId().equals(owner.agentId())) {
                throw MemoryErrors.duplicateBlock(target, label);
            }
            rows.putShare(owner, label, agentId, permission);
            // What the other agent sees changed: logged as its block (an index finds no block of its own to load).
            StoreCore.record(rows, ChangeEvent.Entity.BLOCK, label, ChangeEvent.Op.UPSERT, owner.userId(), agentId);
            return null;
        });
    }

    /** Ends a share; returns whether there was one. */
    public boolean unshare(Scope owner, String label, String agentId) {
        Checks.notNull(owner, "owner");
        Checks.notNull(label, "label");
        Checks.id(agentId, "agent id");
        return store.write(rows -> {
            requireOwn(rows, owner, label);
            boolean had = rows.deleteShare(owner, label, agentId);
            if (had) {
                StoreCore.record(rows, ChangeEvent.Entity.BLOCK, label, ChangeEvent.Op.DELETE, owner.userId(), agentId);
            }
            return had;
        });
    }

    /**
     * Copies one of the agent's own blocks into archival memory as the entry with the block's label:
     * a new entry, or the existing entry of that label with its content replaced (its id, tags and
     * creation time kept). Unless {@code keepBlock}, the block is deleted in the same transaction.
     *
     * @throws NotFoundException        if the agent does not own such a block
     * @throws IllegalArgumentException if the block is empty
     */
    public ArchivalEntry archive(Scope scope, String label, boolean keepBlock) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.write(rows -> archive(rows, scope, label, keepBlock));
    }

    /**
     * Loads a copy of the archival entry labelled {@code archivalLabel} into a new working block
     * labelled {@code blockLabel}. The entry stays in archival memory, unchanged.
     *
     * @throws NotFoundException      if there is no such entry
     * @throws DuplicateException     if a block with {@code blockLabel} exists
     * @throws LimitExceededException if the content is longer than {@code limit}
     */
    public Block load(Scope scope, String archivalLabel, String blockLabel, int limit) {
        Checks.notNull(scope, "scope");
        Checks.notNull(archivalLabel, "archival label");
        Checks.id(blockLabel, "block label");
        checkLoadLimit(limit);
        return store.write(rows -> load(rows, scope, archivalLabel, blockLabel, limit));
    }

    /**
     * In one transaction: archives block {@code outLabel} (deleting it) and loads the archival entry
     * {@code inLabel} into a working block of the same label. Either both happen or neither.
     */
    public Swap swap(Scope scope, String outLabel, String inLabel, int limit) {
        Checks.notNull(scope, "scope");
        Checks.notNull(outLabel, "label to archive");
        Checks.id(inLabel, "label to load");
        checkLoadLimit(limit);
        return store.write(rows -> {
            ArchivalEntry archived = archive(rows, scope, outLabel, false);
            return new Swap(archived, load(rows, scope, inLabel, inLabel, limit));
        });
    }

    /** The result of {@link #swap}: the entry the block went to, and the block loaded in its place. */
    public record Swap(ArchivalEntry archived, Block loaded) {
    }

    // ---- the rules, once for every backend ----

    private static void checkLoadLimit(int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("block limit must be positive, got " + limit);
        }
    }

    private static Scope owner(Scope viewer, Block b) {
        return Scope.of(viewer.userId(), b.ownerAgentId());
    }

    private static Block require(Rows rows, Scope scope, String label) {
        return rows.block(scope, label).orElseThrow(() -> MemoryErrors.noBlock(scope, label));
    }

    private static Block requireOwn(Rows rows, Scope scope, String label) {
        Block b = require(rows, scope, label);
        if (b.isShared(scope)) {
            throw MemoryErrors.notOwnBlock(scope, label);
        }
        return b;
    }

    private Block insert(Rows rows, Scope scope, NewBlock nb, String operation) {
        store.limits().checkBlockLimit(nb.label(), nb.limit());
        if (rows.block(scope, nb.label()).isPresent()) {
            throw MemoryErrors.duplicateBlock(scope, nb.label());
        }
        store.checkQuota(rows, scope.userId(), new UserUsage(0, 1, 0, 0, StoreCore.utf8Bytes(nb.value())));
        Instant now = store.now();
        Block block = new Block(nb.label(), nb.description(), nb.value(), nb.limit(), nb.type(), nb.permission(),
                nb.pinned(), 1, scope.agentId(), now, now);
        rows.insertBlock(scope, block);
        rows.insertBlockVersion(scope, nb.label(), new BlockVersion(1, nb.value(), operation(operation), now));
        StoreCore.record(rows, ChangeEvent.Entity.BLOCK, nb.label(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
        return block;
    }

    /** Refuses a write that expected another version than the block's (unless it expected {@link #ANY_VERSION}). */
    private static void checkVersion(String label, long expected, long actual) {
        if (expected != ANY_VERSION && expected != actual) {
            throw new VersionConflictException(label, expected, actual);
        }
    }

    private Block update(Rows rows, Scope viewer, Block b, String value, long expectedVersion, String operation) {
        checkVersion(b.label(), expectedVersion, b.version());
        MemoryErrors.checkLimit(b.label(), value, b.limit(), b.size());
        store.checkQuota(rows, viewer.userId(), new UserUsage(0, 0, 0, 0, StoreCore.utf8Bytes(value) - StoreCore.utf8Bytes(b.value())));
        Instant now = store.now();
        Block next = new Block(b.label(), b.description(), value, b.limit(), b.type(), b.permission(), b.pinned(),
                b.version() + 1, b.ownerAgentId(), b.createdAt(), now);
        Scope owner = owner(viewer, b);
        if (!rows.updateBlock(owner, next, b.version())) {
            // Another process sharing the storage changed it between our read and write.
            throw new VersionConflictException(b.label(), b.version(), -1);
        }
        rows.insertBlockVersion(owner, b.label(), new BlockVersion(next.version(), value, operation(operation), now));
        StoreCore.record(rows, ChangeEvent.Entity.BLOCK, b.label(), ChangeEvent.Op.UPSERT, owner.userId(), owner.agentId());
        return next;
    }

    private static void remove(Rows rows, Scope viewer, Block b) {
        Scope owner = owner(viewer, b);
        rows.deleteBlock(owner, b.label());
        StoreCore.record(rows, ChangeEvent.Entity.BLOCK, b.label(), ChangeEvent.Op.DELETE, owner.userId(), owner.agentId());
    }

    private ArchivalEntry archive(Rows rows, Scope scope, String label, boolean keepBlock) {
        Block b = requireOwn(rows, scope, label);
        if (b.value().isBlank()) {
            throw new IllegalArgumentException("block '" + label + "' is empty; there is nothing to archive");
        }
        Instant now = store.now();
        Optional<ArchivalEntry> old = rows.archivalByLabel(scope, label);
        ArchivalEntry entry = old.map(o -> new ArchivalEntry(o.id(), o.label(), b.value(), o.tags(), o.createdAt(), now))
                .orElseGet(() -> new ArchivalEntry(Ids.next("archival"), Optional.of(label), b.value(), List.of(), now, now));
        // the entry's bytes replace an older entry's of that label and, unless it is kept, the block's
        long freed = old.map(o -> StoreCore.utf8Bytes(o.content())).orElse(0L) + (keepBlock ? 0 : StoreCore.utf8Bytes(b.value()));
        store.checkQuota(rows, scope.userId(), new UserUsage(0, 0, old.isPresent() ? 0 : 1, 0,
                StoreCore.utf8Bytes(b.value()) - freed));
        rows.putArchival(scope, List.of(entry));
        StoreCore.record(rows, ChangeEvent.Entity.ARCHIVAL, entry.id(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
        if (!keepBlock) {
            remove(rows, scope, b);
        }
        return entry;
    }

    private Block load(Rows rows, Scope scope, String archivalLabel, String blockLabel, int limit) {
        ArchivalEntry entry = rows.archivalByLabel(scope, archivalLabel)
                .orElseThrow(() -> MemoryErrors.noArchivalLabel(archivalLabel));
        MemoryErrors.checkLimit(blockLabel, entry.content(), limit, 0);
        return insert(rows, scope, NewBlock.builder(blockLabel)
                .description("Loaded from archival memory entry '" + archivalLabel + "'.")
                .value(entry.content()).limit(limit).type(BlockType.WORKING).build(), "load");
    }
}

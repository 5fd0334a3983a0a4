package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * Core memory blocks. A label names a block within one agent; a block can be shared with other
 * agents of the same user, who then see it under the same label with the attachment's permission.
 *
 * <p>Writes take an expected version for optimistic locking: pass {@link #ANY_VERSION} to write
 * whatever the current version is (the write is still atomic), or the version you read to fail with
 * {@link VersionConflictException} if the block changed since. A write that would exceed the block's
 * limit fails with {@link LimitExceededException}; failed writes change nothing.
 *
 * <p>The store enforces scope, limits and versions. Permissions are the callers' business: decide
 * with {@link Acl#decide} using {@link Block#permission()} before writing.
 */
public interface BlockStore {
    /** Write whatever the current version is. */
    long ANY_VERSION = -1;

    /**
     * Creates a block owned by the scope's agent.
     *
     * @throws DuplicateException if the agent already has or is shared a block with that label
     */
    Block create(Scope scope, NewBlock block);

    /** The block with that label that the agent owns or is shared. */
    Optional<Block> get(Scope scope, String label);

    /** The blocks the agent owns and is shared, pinned first, then by label. */
    List<Block> list(Scope scope);

    /**
     * Appends {@code text} exactly as given (callers add separators).
     *
     * @throws NotFoundException         if the agent has no such block
     * @throws LimitExceededException    if the result would exceed the limit
     * @throws VersionConflictException  if {@code expectedVersion} is not current
     */
    Block append(Scope scope, String label, String text, long expectedVersion);

    /** Replaces the whole value; same failures as {@link #append}. */
    Block replace(Scope scope, String label, String value, long expectedVersion);

    /**
     * Deletes the block (for every agent it is shared with) and its history.
     *
     * @throws NotFoundException         if the agent has no such block
     * @throws VersionConflictException  if {@code expectedVersion} is not current
     */
    void delete(Scope scope, String label, long expectedVersion);

    /** Every committed version, oldest first; empty if there is no such block. */
    List<BlockVersion> history(Scope scope, String label);

    /** Makes the value of an earlier version the current value, as a new version. */
    Block restore(Scope scope, String label, long version, long expectedVersion);

    /**
     * Shares one of the scope agent's own blocks with another agent of the same user.
     *
     * @throws NotFoundException  if the scope's agent does not own such a block
     * @throws DuplicateException if the other agent already has a block with that label
     */
    void share(Scope owner, String label, String agentId, MemoryPermission permission);

    /** Ends a share; returns whether there was one. */
    boolean unshare(Scope owner, String label, String agentId);

    /**
     * Moves one of the agent's own blocks into archival memory as an entry with the block's label,
     * replacing the content of an existing entry of that label. Unless {@code keepBlock}, the block is
     * deleted in the same transaction.
     */
    ArchivalEntry archive(Scope scope, String label, boolean keepBlock);

    /**
     * Loads the archival entry labelled {@code archivalLabel} into a working block. Under the same
     * label the entry becomes the block (it leaves archival memory); under another label a new block
     * is created and the entry stays.
     *
     * @throws NotFoundException      if there is no such entry
     * @throws DuplicateException     if a block with {@code blockLabel} exists
     * @throws LimitExceededException if the content is longer than {@code limit}
     */
    Block load(Scope scope, String archivalLabel, String blockLabel, int limit);

    /**
     * In one transaction: archives block {@code outLabel} (deleting it) and loads the archival entry
     * {@code inLabel} into a working block of the same label.
     */
    Swap swap(Scope scope, String outLabel, String inLabel, int limit);

    /** The result of {@link #swap}. */
    record Swap(ArchivalEntry archived, Block loaded) {
    }
}

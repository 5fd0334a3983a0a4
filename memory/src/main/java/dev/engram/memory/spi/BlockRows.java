package dev.engram.memory.spi;

import dev.engram.memory.AgentRecord;
import dev.engram.memory.Block;
import dev.engram.memory.BlockVersion;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The core-memory blocks of a {@link MemoryBackend}: each identified by its owner's scope and its label, with its
 * history and its shares. An agent sees its own blocks and the blocks shared with it, with the share's permission.
 * Blocks are shared only with agents of the same user, so these rows see the user's agents ({@link AgentRows}).
 */
public interface BlockRows extends AgentRows {
    /** The blocks {@code viewer} owns, then those shared with it (owner's user only), each with the permission it has. */
    List<Block> blocks(Scope viewer);

    /**
     * The block labelled {@code label} that {@code viewer} owns, else one shared with it. The default
     * looks through {@link #blocks}; override it with a lookup by label where that is cheaper.
     */
    default Optional<Block> block(Scope viewer, String label) {
        Block shared = null;
        for (Block b : blocks(viewer)) {
            if (b.label().equals(label)) {
                if (!b.isShared(viewer)) {
                    return Optional.of(b);
                }
                shared = b;
            }
        }
        return Optional.ofNullable(shared);
    }

    /** Stores a new block of {@code owner} (whose agent is {@code block.ownerAgentId()}). */
    void insertBlock(Scope owner, Block block);

    /**
     * Stores {@code block}'s value, description, limit, permission, version and update time for the owner's
     * block of that label if its stored version is still {@code expectedVersion}; returns whether it did.
     */
    boolean updateBlock(Scope owner, Block block, long expectedVersion);

    /** Removes the owner's block of that label with its versions and shares. */
    void deleteBlock(Scope owner, String label);

    /** Adds one version to the history of the owner's block of that label. */
    void insertBlockVersion(Scope owner, String label, BlockVersion version);

    /** The history of the owner's block of that label, oldest first. */
    List<BlockVersion> blockVersions(Scope owner, String label);

    /** Shares the owner's block with agent {@code agentId} of the same user, or changes the share's permission. */
    void putShare(Scope owner, String label, String agentId, MemoryPermission permission);

    /** Ends a share; returns whether there was one. */
    boolean deleteShare(Scope owner, String label, String agentId);

    /**
     * The agents the owner's block of that label is shared with. The default asks each of the user's
     * agents ({@link #listAgents}) whether it sees the owner's block; override it with a lookup of the
     * shares themselves, which also finds shares with agents that have no record.
     */
    default List<String> shareTargets(Scope owner, String label) {
        List<String> targets = new ArrayList<>();
        for (AgentRecord agent : listAgents(owner.userId())) {
            String id = agent.scope().agentId();
            if (!id.equals(owner.agentId()) && block(agent.scope(), label)
                    .filter(b -> b.ownerAgentId().equals(owner.agentId())).isPresent()) {
                targets.add(id);
            }
        }
        return targets;
    }

    /**
     * Gives the owner's block {@code from} the label {@code to}, with its versions; the block is shared
     * with no one (the store checks). The default stores a copy under the new label and deletes the old
     * block; override it with an update of the label in place.
     */
    default void renameBlock(Scope owner, String from, String to) {
        Block b = block(owner, from).orElseThrow();
        insertBlock(owner, new Block(to, b.description(), b.value(), b.limit(), b.type(), b.permission(), b.pinned(),
                b.version(), b.ownerAgentId(), b.createdAt(), b.updatedAt()));
        for (BlockVersion v : blockVersions(owner, from)) {
            insertBlockVersion(owner, to, v);
        }
        deleteBlock(owner, from);
    }
}

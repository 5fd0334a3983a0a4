package dev.engram.memory;

import dev.engram.memory.spi.BlockRows;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The blocks of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one lock, and
 * record each change in its one undo log.
 */
interface InMemoryBlockRows extends BlockRows {
    /** The blocks, their histories and their shares, each by owner and label. */
    record Tables(Map<InMemoryKey, Block> blocks, Map<InMemoryKey, List<BlockVersion>> versions,
            Map<InMemoryKey, Map<String, MemoryPermission>> shares) {
        Tables() {
            this(new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>());
        }
    }

    /** The backend's blocks. */
    Tables blockTables();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default List<Block> blocks(Scope viewer) {
        List<Block> out = new ArrayList<>();
        blockTables().blocks().forEach((k, b) -> {
            MemoryPermission shared = blockTables().shares().getOrDefault(k, Map.of()).get(viewer.agentId());
            if (!k.userId().equals(viewer.userId())) {
                return;
            }
            if (k.agentId().equals(viewer.agentId())) {
                out.add(b);
            } else if (shared != null) {
                out.add(new Block(b.label(), b.description(), b.value(), b.limit(), b.type(), shared, b.pinned(),
                        b.version(), b.ownerAgentId(), b.createdAt(), b.updatedAt()));
            }
        });
        return out;
    }

    @Override
    default void insertBlock(Scope owner, Block block) {
        undo().put(blockTables().blocks(), InMemoryKey.of(owner, block.label()), block);
    }

    @Override
    default boolean updateBlock(Scope owner, Block block, long expectedVersion) {
        InMemoryKey key = InMemoryKey.of(owner, block.label());
        Block old = blockTables().blocks().get(key);
        if (old == null || old.version() != expectedVersion) {
            return false;
        }
        undo().put(blockTables().blocks(), key, new Block(old.label(), block.description(), block.value(), block.limit(),
                old.type(), block.permission(), old.pinned(), block.version(), old.ownerAgentId(), old.createdAt(),
                block.updatedAt()));
        return true;
    }

    @Override
    default void deleteBlock(Scope owner, String label) {
        InMemoryKey key = InMemoryKey.of(owner, label);
        undo().remove(blockTables().blocks(), key);
        undo().remove(blockTables().versions(), key);
        undo().remove(blockTables().shares(), key);
    }

    @Override
    default void insertBlockVersion(Scope owner, String label, BlockVersion version) {
        InMemoryKey key = InMemoryKey.of(owner, label);
        List<BlockVersion> next = new ArrayList<>(blockTables().versions().getOrDefault(key, List.of()));
        next.add(version);
        undo().put(blockTables().versions(), key, List.copyOf(next));
    }

    @Override
    default List<BlockVersion> blockVersions(Scope owner, String label) {
        return blockTables().versions().getOrDefault(InMemoryKey.of(owner, label), List.of());
    }

    @Override
    default void putShare(Scope owner, String label, String agentId, MemoryPermission permission) {
        InMemoryKey key = InMemoryKey.of(owner, label);
        Map<String, MemoryPermission> next = new LinkedHashMap<>(blockTables().shares().getOrDefault(key, Map.of()));
        next.put(agentId, permission);
        undo().put(blockTables().shares(), key, Map.copyOf(next));
    }

    @Override
    default boolean deleteShare(Scope owner, String label, String agentId) {
        InMemoryKey key = InMemoryKey.of(owner, label);
        Map<String, MemoryPermission> next = new LinkedHashMap<>(blockTables().shares().getOrDefault(key, Map.of()));
        if (next.remove(agentId) == null) {
            return false;
        }
        undo().put(blockTables().shares(), key, Map.copyOf(next));
        return true;
    }

    @Override
    default List<String> shareTargets(Scope owner, String label) {
        return blockTables().shares().getOrDefault(InMemoryKey.of(owner, label), Map.of()).keySet().stream().sorted()
                .toList();
    }
}

package dev.engram.memory;

/**
 * A block's new value and settings, all at once, for {@link BlockStore#update}: what an administrator (the
 * server's block endpoints) changes, where an agent's tools change only the value.
 *
 * @param value       the new value; at most {@code limit} characters
 * @param description the new description
 * @param limit       the new character limit; positive
 * @param permission  the new permission of the owner's block (a share keeps its own)
 */
public record BlockUpdate(String value, String description, int limit, MemoryPermission permission) {
    public BlockUpdate {
        Checks.unicode(value, "value");
        Checks.unicode(description, "description");
        Checks.notNull(permission, "permission");
        if (limit <= 0) {
            throw new IllegalArgumentException("block limit must be positive, got " + limit);
        }
    }

    /** The block's current value and settings, to change some of them with the {@code with...} methods. */
    public static BlockUpdate of(Block block) {
        return new BlockUpdate(block.value(), block.description(), block.limit(), block.permission());
    }

    public BlockUpdate withValue(String newValue) {
        return new BlockUpdate(newValue, description, limit, permission);
    }

    public BlockUpdate withDescription(String newDescription) {
        return new BlockUpdate(value, newDescription, limit, permission);
    }

    public BlockUpdate withLimit(int newLimit) {
        return new BlockUpdate(value, description, newLimit, permission);
    }

    public BlockUpdate withPermission(MemoryPermission newPermission) {
        return new BlockUpdate(value, description, limit, newPermission);
    }
}

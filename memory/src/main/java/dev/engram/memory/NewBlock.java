package dev.engram.memory;

/**
 * A block to create. Build one with {@link #builder(String)}:
 * {@code NewBlock.builder("human").description("What I know about the user").limit(2000).build()}.
 *
 * @param label       unique per agent
 * @param description what the block is for
 * @param value       the initial text; at most {@code limit} characters
 * @param limit       the character limit; positive
 * @param type        defaults to {@link BlockType#CORE}
 * @param permission  defaults to {@link MemoryPermission#READ_WRITE}
 * @param pinned      defaults to false
 */
public record NewBlock(String label, String description, String value, int limit, BlockType type,
        MemoryPermission permission, boolean pinned) {
    /** The limit a block gets when none is given. */
    public static final int DEFAULT_LIMIT = 5_000;

    public NewBlock {
        Checks.id(label, "label");
        Checks.unicode(description, "description");
        Checks.unicode(value, "value");
        Checks.notNull(type, "type");
        Checks.notNull(permission, "permission");
        if (limit <= 0) {
            throw new IllegalArgumentException("block limit must be positive, got " + limit);
        }
        if (Checks.size(value) > limit) {
            throw new LimitExceededException(label, Checks.size(value), limit, 0);
        }
    }

    public static Builder builder(String label) {
        return new Builder(label);
    }

    /** Builds a {@link NewBlock}. */
    public static final class Builder {
        private final String label;
        private String description = "";
        private String value = "";
        private int limit = DEFAULT_LIMIT;
        private BlockType type = BlockType.CORE;
        private MemoryPermission permission = MemoryPermission.READ_WRITE;
        private boolean pinned;

        private Builder(String label) {
            this.label = label;
        }

        public Builder description(String description) {
            this.description = description;
            return this;
        }

        public Builder value(String value) {
            this.value = value;
            return this;
        }

        public Builder limit(int limit) {
            this.limit = limit;
            return this;
        }

        public Builder type(BlockType type) {
            this.type = type;
            return this;
        }

        public Builder permission(MemoryPermission permission) {
            this.permission = permission;
            return this;
        }

        public Builder pinned(boolean pinned) {
            this.pinned = pinned;
            return this;
        }

        public NewBlock build() {
            return new NewBlock(label, description, value, limit, type, permission, pinned);
        }
    }
}

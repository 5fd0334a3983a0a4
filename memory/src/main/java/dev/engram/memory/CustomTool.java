package dev.engram.memory;

import java.time.Instant;

/**
 * A tool a user created from source ({@link CustomToolSpec}), as the store keeps it.
 *
 * @param id        {@code tool-<uuid>}
 * @param userId    the user whose tool it is
 * @param spec      its name, source, schema and settings
 * @param createdAt when it was created
 * @param updatedAt when it was last changed
 */
public record CustomTool(String id, String userId, CustomToolSpec spec, Instant createdAt, Instant updatedAt) {
    /** The prefix of every custom tool's id. */
    public static final String ID_PREFIX = "tool-";

    public CustomTool {
        Checks.id(id, "tool id");
        Checks.id(userId, "user id");
        Checks.notNull(spec, "tool spec");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }

    /** Its function's name. */
    public String name() {
        return spec.name();
    }

    /** This tool with another spec, changed at {@code at}. */
    public CustomTool with(CustomToolSpec newSpec, Instant at) {
        return new CustomTool(id, userId, newSpec, createdAt, at);
    }
}

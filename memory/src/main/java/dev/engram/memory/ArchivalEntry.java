package dev.engram.memory;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A long-term fact or document in an agent's archival memory.
 *
 * @param id        {@code archival-<uuid>}
 * @param label     an optional label, unique per scope when present
 * @param content   the text
 * @param tags      free tags, for filtering searches
 * @param createdAt when it was inserted
 * @param updatedAt when it last changed
 */
public record ArchivalEntry(String id, Optional<String> label, String content, List<String> tags, Instant createdAt,
        Instant updatedAt) {
    public ArchivalEntry {
        Checks.id(id, "id");
        Checks.notNull(label, "label");
        Checks.text(content, "content");
        tags = List.copyOf(tags);
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }
}

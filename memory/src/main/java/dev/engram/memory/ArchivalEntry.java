package dev.engram.memory;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A long-term fact or document in an agent's archival memory.
 *
 * @param id         {@code archival-<uuid>}
 * @param label      an optional label, unique per scope when present
 * @param content    the text
 * @param tags       free tags, for filtering searches
 * @param createdAt  when it was inserted: from then on it held ({@link #validFrom()})
 * @param updatedAt  when it last changed
 * @param metadata   free fields a search can filter on
 * @param validTo    when a newer version superseded it; empty while it is current
 * @param supersedes the id of the entry it replaced, if it replaced one
 */
public record ArchivalEntry(String id, Optional<String> label, String content, List<String> tags, Instant createdAt,
        Instant updatedAt, Metadata metadata, Optional<Instant> validTo, Optional<String> supersedes) {
    public ArchivalEntry {
        Checks.id(id, "id");
        Checks.notNull(label, "label");
        Checks.text(content, "content");
        tags = List.copyOf(tags);
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
        Checks.notNull(metadata, "metadata");
        Checks.notNull(validTo, "validTo");
        Checks.notNull(supersedes, "supersedes");
    }

    /** A current entry without metadata. */
    public ArchivalEntry(String id, Optional<String> label, String content, List<String> tags, Instant createdAt,
            Instant updatedAt) {
        this(id, label, content, tags, createdAt, updatedAt, Metadata.empty(), Optional.empty(), Optional.empty());
    }

    /** When it became true: when it was inserted. */
    public Instant validFrom() {
        return createdAt;
    }

    /** Whether no newer entry has superseded it. */
    public boolean isCurrent() {
        return validTo.isEmpty();
    }
}

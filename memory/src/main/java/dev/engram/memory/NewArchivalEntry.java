package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * An archival entry to insert.
 *
 * @param label    optional; unique per scope when present
 * @param content  the text; not blank
 * @param tags     free tags; each non-blank
 * @param metadata free fields a search can filter on
 */
public record NewArchivalEntry(Optional<String> label, String content, List<String> tags, Metadata metadata) {
    public NewArchivalEntry {
        Checks.notNull(label, "label");
        label.ifPresent(l -> Checks.id(l, "label"));
        if (content == null || content.isBlank()) {
            throw new IllegalArgumentException("archival content must not be null or blank");
        }
        Checks.unicode(content, "archival content");
        tags = List.copyOf(Checks.noNulls(tags, "tags"));
        tags.forEach(t -> Checks.id(t, "tag"));
        Checks.notNull(metadata, "metadata");
    }

    /** An entry without metadata. */
    public NewArchivalEntry(Optional<String> label, String content, List<String> tags) {
        this(label, content, tags, Metadata.empty());
    }

    public static NewArchivalEntry of(String content) {
        return new NewArchivalEntry(Optional.empty(), content, List.of());
    }

    public static NewArchivalEntry labelled(String label, String content, List<String> tags) {
        return new NewArchivalEntry(Optional.of(label), content, tags);
    }

    /** This entry with {@code metadata}. */
    public NewArchivalEntry withMetadata(Metadata metadata) {
        return new NewArchivalEntry(label, content, tags, metadata);
    }
}

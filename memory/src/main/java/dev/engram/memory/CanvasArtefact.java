package dev.engram.memory;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * One version of a canvas artefact: an HTML document (with its CSS and JavaScript inline) that an agent wrote for its
 * user to open. An artefact belongs to one agent of one user and is named; each write of a name stores a new version
 * (1, 2, ...) and keeps the earlier ones.
 *
 * @param scope     the user and agent it belongs to
 * @param name      its name, unique among the agent's artefacts ({@link CanvasStore#NAME_PATTERN})
 * @param version   1 for the first write of the name, then one more per write
 * @param title     a short title for lists and the browser tab; may be empty
 * @param content   the HTML document
 * @param createdAt when this version was written
 */
public record CanvasArtefact(Scope scope, String name, int version, String title, String content, Instant createdAt) {
    public CanvasArtefact {
        Checks.notNull(scope, "scope");
        Checks.id(name, "canvas name");
        if (version < 1) {
            throw new IllegalArgumentException("a canvas version is 1 or more, got " + version);
        }
        Checks.unicode(title, "canvas title");
        Checks.unicode(content, "canvas content");
        Checks.notNull(createdAt, "createdAt");
    }

    /** The size of the content in UTF-8 bytes, which {@link CanvasStore#MAX_BYTES} limits. */
    public int bytes() {
        return content.getBytes(StandardCharsets.UTF_8).length;
    }
}

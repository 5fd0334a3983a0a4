package dev.engram.memory;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The canvas artefacts of each user's agents ({@link CanvasArtefact}): HTML documents an agent writes for its user,
 * versioned (every write of a name is a new version; the earlier ones are kept and listed). Backends keep them through
 * the optional canvas methods of {@link dev.engram.memory.spi.Rows}; over a backend without them every method here
 * throws {@link UnsupportedOperationException}. An artefact is read and written only in its agent's scope: another
 * agent's, or another user's, is not there.
 */
public final class CanvasStore {
    /** The largest artefact, in UTF-8 bytes: 1 MiB. */
    public static final int MAX_BYTES = 1 << 20;
    /** The most artefacts (names) one agent keeps. */
    public static final int MAX_NAMES = 200;
    /** The most versions one name keeps. */
    public static final int MAX_VERSIONS = 500;
    /** The longest title, in characters. */
    public static final int MAX_TITLE = 200;
    /** What a name looks like: a letter or digit, then up to 63 letters, digits, dots, dashes or underscores. */
    public static final Pattern NAME_PATTERN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final StoreCore store;

    CanvasStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Stores {@code content} as the next version of the scope's artefact {@code name} (version 1 if the name is new).
     *
     * @throws IllegalArgumentException if the name does not match {@link #NAME_PATTERN}, the content is empty or over
     *                                  {@link #MAX_BYTES}, the title is over {@link #MAX_TITLE}, the name is new and the
     *                                  agent already keeps {@link #MAX_NAMES} artefacts, or the name already has
     *                                  {@link #MAX_VERSIONS} versions; nothing is stored then
     */
    public CanvasArtefact write(Scope scope, String name, String title, String content) {
        Checks.notNull(scope, "scope");
        checkName(name);
        Checks.unicode(title, "canvas title");
        Checks.unicode(content, "canvas content");
        if (title.length() > MAX_TITLE) {
            throw new IllegalArgumentException("a canvas title is at most " + MAX_TITLE + " characters, got " + title.length()
                    + "; shorten it");
        }
        if (content.isBlank()) {
            throw new IllegalArgumentException("the canvas content is empty; write an HTML document");
        }
        int bytes = content.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException("canvas '" + name + "' is " + bytes + " bytes; an artefact is at most "
                    + MAX_BYTES + " bytes (1 MiB): make it smaller (load less data inline, drop unused code)");
        }
        return store.write(rows -> {
            int last = rows.lastCanvasVersion(scope, name);
            if (last == 0 && rows.listCanvases(scope).size() >= MAX_NAMES) {
                throw new IllegalArgumentException("agent '" + scope.agentId() + "' already keeps " + MAX_NAMES
                        + " canvas artefacts; write a new version of an existing one instead of a new name");
            }
            if (last >= MAX_VERSIONS) {
                throw new IllegalArgumentException("canvas '" + name + "' already has " + MAX_VERSIONS
                        + " versions; write under a new name");
            }
            CanvasArtefact a = new CanvasArtefact(scope, name, last + 1, title, content, store.now());
            rows.insertCanvas(a);
            return a;
        });
    }

    /** The newest version of the scope's artefact {@code name}. */
    public Optional<CanvasArtefact> latest(Scope scope, String name) {
        Checks.notNull(scope, "scope");
        Checks.notNull(name, "canvas name");
        return store.read(rows -> {
            int last = rows.lastCanvasVersion(scope, name);
            return last == 0 ? Optional.<CanvasArtefact>empty() : rows.canvas(scope, name, last);
        });
    }

    /** Version {@code version} of the scope's artefact {@code name}. */
    public Optional<CanvasArtefact> get(Scope scope, String name, int version) {
        Checks.notNull(scope, "scope");
        Checks.notNull(name, "canvas name");
        return store.read(rows -> rows.canvas(scope, name, version));
    }

    /** Every version of the scope's artefact {@code name}, oldest first; empty when there is none. */
    public List<CanvasArtefact> versions(Scope scope, String name) {
        Checks.notNull(scope, "scope");
        Checks.notNull(name, "canvas name");
        return store.read(rows -> rows.canvasVersions(scope, name));
    }

    /** The newest version of each of the scope's artefacts, by name. */
    public List<CanvasArtefact> list(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> rows.listCanvases(scope));
    }

    private static void checkName(String name) {
        Checks.notNull(name, "canvas name");
        if (!NAME_PATTERN.matcher(name).matches()) {
            throw new IllegalArgumentException("canvas name '" + name + "' is not valid: use 1 to 64 letters, digits, dots, "
                    + "dashes or underscores, starting with a letter or digit (e.g. sales-chart)");
        }
    }
}

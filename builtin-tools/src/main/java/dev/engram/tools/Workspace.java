package dev.engram.tools;

import dev.engram.framework.ToolException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The directory the workspace tools are confined to, and which parts of it may be written.
 *
 * <p>Every path a tool receives is resolved here: relative to the root, canonicalised, and rejected
 * (with a {@link ToolException} the model reads) when it is absolute outside the root, climbs out
 * with {@code ..}, goes through a symbolic link that leads outside, or contains control, bidirectional
 * or other invisible formatting characters. Reading tools see the whole root (read-only view);
 * writing tools only the writable roots.
 */
public final class Workspace {
    private final Path root;
    private final List<Path> writable;

    private Workspace(Path root, List<Path> writable) {
        this.root = root;
        this.writable = writable;
    }

    /**
     * A workspace at {@code root} (which must exist), writable everywhere inside it.
     *
     * @throws IllegalArgumentException if root is not a directory
     */
    public static Workspace of(Path root) {
        return builder(root).build();
    }

    public static Builder builder(Path root) {
        return new Builder(root);
    }

    public Path root() {
        return root;
    }

    public List<Path> writableRoots() {
        return writable;
    }

    /** A path for reading: inside the root after resolving links. */
    Path readable(String path) {
        return resolve(path, false);
    }

    /** A path for writing: inside a writable root after resolving links. */
    Path writable(String path) {
        return resolve(path, true);
    }

    /** The path as the model should see it: relative to the root, with forward slashes. */
    String display(Path p) {
        String rel = root.relativize(p).toString().replace('\\', '/');
        return rel.isEmpty() ? "." : rel;
    }

    /** The longest path accepted, in characters. */
    static final int MAX_PATH_CHARS = 4_096;
    /** The most directory levels a path may have. */
    static final int MAX_PATH_DEPTH = 256;
    /** The longest file or directory name, in UTF-8 bytes (what Linux, macOS and Windows file systems allow). */
    static final int MAX_NAME_BYTES = 255;

    private Path resolve(String raw, boolean forWriting) {
        Objects.requireNonNull(raw, "path");
        if (raw.isEmpty()) {
            throw new ToolException("path is empty; give a path relative to the workspace root, such as notes/todo.md.");
        }
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            int type = Character.getType(c);
            if (Character.isISOControl(c) || type == Character.FORMAT || type == Character.UNASSIGNED
                    || type == Character.PRIVATE_USE || type == Character.SURROGATE && !validSurrogate(raw, i)) {
                throw new ToolException("path contains an invisible or control character (U+" + String.format("%04X", (int) c)
                        + "); write the path in plain characters.");
            }
        }
        if (raw.length() > MAX_PATH_CHARS) {
            throw new ToolException("path is " + raw.length() + " characters long; the most is " + MAX_PATH_CHARS + ".");
        }
        String[] parts = raw.split("[/\\\\]");
        if (parts.length > MAX_PATH_DEPTH) {
            throw new ToolException("path has " + parts.length + " levels; the most is " + MAX_PATH_DEPTH + ".");
        }
        for (String part : parts) {
            int bytes = part.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            if (bytes > MAX_NAME_BYTES) {
                throw new ToolException("a name in the path is " + bytes + " bytes long ('"
                        + part.codePoints().limit(20).collect(StringBuilder::new, StringBuilder::appendCodePoint,
                                StringBuilder::append) + "...'); a file or directory name may be at most " + MAX_NAME_BYTES + " bytes.");
            }
        }
        String normalised = Normalizer.normalize(raw, Normalizer.Form.NFC);
        Path candidate;
        try {
            Path given = Path.of(normalised);
            candidate = (given.isAbsolute() ? given : root.resolve(given)).normalize();
        } catch (InvalidPathException e) {
            throw new ToolException("'" + raw + "' is not a valid path: " + e.getReason() + ".");
        }
        if (!candidate.startsWith(root)) {
            throw new ToolException("'" + raw + "' is outside the workspace; use a path inside it, relative to its root.");
        }
        Path real = realPath(candidate);
        if (!real.startsWith(root)) {
            throw new ToolException("'" + raw + "' leads outside the workspace through a symbolic link; it cannot be used.");
        }
        if (forWriting) {
            for (Path part : root.relativize(real)) {
                if (part.toString().startsWith(".")) {
                    throw new ToolException("'" + raw + "' is inside the hidden file or directory '" + part + "'; hidden "
                            + "files (such as .git and .gitconfig) hold configuration that can make programs run commands, "
                            + "so the file tools do not write them.");
                }
            }
        }
        if (forWriting && writable.stream().noneMatch(real::startsWith)) {
            throw new ToolException(writable.isEmpty() ? "The workspace is read-only; '" + raw + "' cannot be changed."
                    : "'" + raw + "' is in a read-only part of the workspace; writable: "
                    + writable.stream().map(this::display).toList() + ".");
        }
        return real;
    }

    private static boolean validSurrogate(String s, int i) {
        char c = s.charAt(i);
        return Character.isHighSurrogate(c) ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
                : i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    /** The real path of the longest existing prefix, with the rest appended: links are followed where they exist. */
    static Path realPath(Path p) {
        Path existing = p;
        List<Path> rest = new ArrayList<>();
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            rest.add(0, existing.getFileName());
            existing = existing.getParent();
        }
        if (existing == null) {
            return p;
        }
        Path real;
        try {
            real = existing.toRealPath();
        } catch (IOException e) {
            // A dangling link: point at where it goes, so that the containment check judges that.
            try {
                Path target = Files.readSymbolicLink(existing);
                real = existing.resolveSibling(target).normalize();
            } catch (IOException | UnsupportedOperationException e2) {
                throw new UncheckedIOException(e);
            }
        }
        for (Path part : rest) {
            real = real.resolve(part);
        }
        return real.normalize();
    }

    /** Builds a {@link Workspace}. */
    public static final class Builder {
        private final Path root;
        private final List<Path> writable = new ArrayList<>();
        private boolean restricted;

        private Builder(Path root) {
            Objects.requireNonNull(root, "workspace root must not be null");
            if (!Files.isDirectory(root)) {
                throw new IllegalArgumentException("workspace root " + root + " is not a directory");
            }
            try {
                this.root = root.toRealPath();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot resolve workspace root " + root, e);
            }
        }

        /** Makes only these subdirectories writable (relative to the root); by default the whole root is. */
        public Builder writable(String... relativeDirs) {
            for (String d : relativeDirs) {
                Path p = root.resolve(d).normalize();
                if (!p.startsWith(root)) {
                    throw new IllegalArgumentException("writable directory " + d + " is outside the workspace root");
                }
                writable.add(p);
            }
            restricted = true;
            return this;
        }

        /** Nothing is writable: a read-only workspace. */
        public Builder readOnly() {
            writable.clear();
            restricted = true;
            return this;
        }

        public Workspace build() {
            return new Workspace(root, restricted ? List.copyOf(writable) : List.of(root));
        }
    }
}

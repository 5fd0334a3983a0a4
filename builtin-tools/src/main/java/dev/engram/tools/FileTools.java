package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.patch.Patch;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.Truncation;
import dev.engram.framework.ToolException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The file tools, all confined to a {@link Workspace}: {@code file_read}, {@code file_list} and
 * {@code file_search} see the whole workspace read-only; {@code file_write}, {@code file_edit} and
 * {@code file_delete} only its writable roots.
 */
final class FileTools {
    static final int READ_MAX_LINES = 400;
    static final int READ_MAX_CHARS = 12_000;
    static final int LIST_LIMIT = 1_000;
    static final int LIST_SHOWN = 500;
    static final int SEARCH_LIMIT = 100;
    static final int SEARCH_SHOWN = 50;
    static final long SEARCH_MAX_FILE_BYTES = 2_000_000;

    private FileTools() {
    }

    record ReadInput(@JsonPropertyDescription("File path, relative to the workspace root.") String path,
            @JsonPropertyDescription("First line to return, 1-based; default 1.") Optional<Integer> startLine,
            @JsonPropertyDescription("Last line to return, inclusive; default as many as fit.") Optional<Integer> endLine) {
    }

    record ListInput(@JsonPropertyDescription("Directory, relative to the workspace root; default the root.") Optional<String> path,
            @JsonPropertyDescription("Also list subdirectories' contents; default false.") Optional<Boolean> recursive,
            @JsonPropertyDescription("Only entries whose path matches this glob, e.g. **/*.md.") Optional<String> glob) {
    }

    record SearchInput(@JsonPropertyDescription("Text or regular expression to find.") String pattern,
            @JsonPropertyDescription("Treat pattern as a Java regular expression; default false (literal text).") Optional<Boolean> regex,
            @JsonPropertyDescription("Only files whose path matches this glob, e.g. src/**/*.java.") Optional<String> glob,
            @JsonPropertyDescription("Match case exactly; default false.") Optional<Boolean> caseSensitive,
            @JsonPropertyDescription("Directory to search in; default the root.") Optional<String> path) {
    }

    record WriteInput(@JsonPropertyDescription("File path, relative to the workspace root.") String path,
            @JsonPropertyDescription("The complete new content of the file.") String content) {
    }

    record EditInput(@JsonPropertyDescription("File path, relative to the workspace root.") String path,
            @JsonPropertyDescription("Exact text to replace; it must occur exactly once in the file.") String oldText,
            @JsonPropertyDescription("Replacement text.") String newText) {
    }

    record DeleteInput(@JsonPropertyDescription("File (or empty directory) path, relative to the workspace root.") String path) {
    }

    static List<AiTool<?, ?>> all(Workspace ws) {
        return List.of(read(ws), list(ws), search(ws), write(ws), new EditTool(ws), new DeleteTool(ws));
    }

    private static AiTool<ReadInput, String> read(Workspace ws) {
        return AiTool.of("file_read", "Read a text file of the workspace, with line numbers. A large file comes in parts: "
                + "the answer says which lines it shows and how to ask for the next ones with start_line.",
                ReadInput.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    Path file = ws.readable(in.path());
                    if (!Files.isRegularFile(file)) {
                        throw new ToolException(Files.isDirectory(file) ? "'" + in.path() + "' is a directory; use file_list."
                                : "There is no file '" + in.path() + "'.");
                    }
                    List<String> lines = textLines(file, in.path());
                    int start = in.startLine().orElse(1);
                    if (start < 1 || (start > lines.size() && !lines.isEmpty())) {
                        throw new ToolException("start_line must be between 1 and " + lines.size() + ", got " + start + ".");
                    }
                    int end = Math.min(lines.size(), in.endLine().orElse(Integer.MAX_VALUE));
                    if (end < start - 1) {
                        throw new ToolException("end_line " + end + " is before start_line " + start + ".");
                    }
                    StringBuilder out = new StringBuilder();
                    int line = start;
                    for (; line <= end && line - start < READ_MAX_LINES; line++) {
                        String numbered = String.format("%6d\t%s%n", line, lines.get(line - 1));
                        if (out.length() + numbered.length() > READ_MAX_CHARS && line > start) {
                            break;
                        }
                        out.append(numbered);
                    }
                    int last = line - 1;
                    String header = ws.display(file) + " (" + lines.size() + " lines; showing " + start + "-" + last + ")\n";
                    String footer = last < end || (in.endLine().isEmpty() && last < lines.size())
                            ? "... " + (lines.size() - last) + " more lines. Call file_read with start_line=" + (last + 1)
                            + " to continue.\n" : "";
                    return header + out + footer;
                });
    }

    static List<String> textLines(Path file, String shown) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        for (int i = 0; i < Math.min(bytes.length, 8_192); i++) {
            if (bytes[i] == 0) {
                throw new ToolException("'" + shown + "' looks like a binary file; only text files can be read.");
            }
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            text = new String(bytes, StandardCharsets.ISO_8859_1);
        }
        if (text.isEmpty()) {
            return List.of();
        }
        String[] parts = text.split("\r?\n", -1);
        // A final newline ends the last line; it does not start another.
        return List.of(parts).subList(0, text.endsWith("\n") ? parts.length - 1 : parts.length);
    }

    private static AiTool<ListInput, String> list(Workspace ws) {
        return AiTool.of("file_list", "List the files and directories of a workspace directory, with file sizes (directories "
                + "end with /), skipping what .gitignore ignores. Use recursive and glob to narrow it. More than " + LIST_LIMIT
                + " entries: the first " + LIST_SHOWN + " and the count are returned.", ListInput.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    Path dir = ws.readable(in.path().orElse("."));
                    if (!Files.isDirectory(dir)) {
                        throw new ToolException("'" + in.path().orElse(".") + "' is not a directory.");
                    }
                    Optional<PathMatcher> matcher = in.glob().map(FileTools::glob);
                    List<String> entries = new ArrayList<>();
                    GitIgnoreWalk.entries(ws.root(), dir, in.recursive().orElse(false), (p, isDir) -> {
                        if (matcher.map(m -> m.matches(dir.relativize(p))).orElse(true)) {
                            entries.add(isDir ? ws.display(p) + "/" : ws.display(p) + "  " + size(p));
                        }
                    });
                    if (entries.isEmpty()) {
                        return "(no entries)";
                    }
                    if (entries.size() > LIST_LIMIT) {
                        return String.join("\n", entries.subList(0, LIST_SHOWN)) + "\n... " + (entries.size() - LIST_SHOWN)
                                + " more (" + entries.size() + " entries in all); narrow it with path or glob.";
                    }
                    return String.join("\n", entries);
                });
    }

    /** A file's size for people: bytes, KB or MB. */
    static String size(Path file) {
        long n;
        try {
            n = Files.size(file);
        } catch (IOException e) {
            return "?";
        }
        return n < 1_024 ? n + " B" : n < 1_048_576 ? String.format(java.util.Locale.ROOT, "%.1f KB", n / 1_024.0)
                : String.format(java.util.Locale.ROOT, "%.1f MB", n / 1_048_576.0);
    }

    static PathMatcher glob(String pattern) {
        try {
            return FileSystems.getDefault().getPathMatcher("glob:" + pattern);
        } catch (IllegalArgumentException e) {
            throw new ToolException("glob '" + pattern + "' is not valid: " + e.getMessage());
        }
    }

    private static AiTool<SearchInput, String> search(Workspace ws) {
        return AiTool.of("file_search", "Find lines in the workspace's text files that contain a text or match a regular "
                + "expression, skipping what .gitignore ignores. Returns path:line: text for each match; more than "
                + SEARCH_LIMIT + " matches: the first " + SEARCH_SHOWN + " and the count.", SearchInput.class,
                SafetyTier.READ_ONLY, (in, ctx) -> {
                    if (in.pattern().isEmpty()) {
                        throw new ToolException("pattern is empty; give the text to find.");
                    }
                    boolean caseSensitive = in.caseSensitive().orElse(false);
                    Pattern pattern;
                    try {
                        int flags = caseSensitive ? 0 : Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
                        pattern = in.regex().orElse(false) ? Pattern.compile(in.pattern(), flags)
                                : Pattern.compile(Pattern.quote(in.pattern()), flags);
                    } catch (PatternSyntaxException e) {
                        throw new ToolException("pattern is not a valid regular expression: " + e.getDescription()
                                + " near index " + e.getIndex() + ". Set regex to false to search for the literal text.");
                    }
                    Path dir = ws.readable(in.path().orElse("."));
                    Optional<PathMatcher> matcher = in.glob().map(FileTools::glob);
                    List<String> matches = new ArrayList<>();
                    int[] total = {0};
                    GitIgnoreWalk.files(ws.root(), dir, file -> {
                        if (matcher.isPresent() && !matcher.get().matches(ws.root().relativize(file))) {
                            return;
                        }
                        List<String> lines;
                        try {
                            if (Files.size(file) > SEARCH_MAX_FILE_BYTES || isBinary(file)) {
                                return;
                            }
                            lines = textLines(file, ws.display(file));
                        } catch (IOException | ToolException e) {
                            return;
                        }
                        for (int i = 0; i < lines.size(); i++) {
                            if (pattern.matcher(new InterruptibleText(lines.get(i))).find()) {
                                total[0]++;
                                if (matches.size() < SEARCH_LIMIT) {
                                    String text = lines.get(i).strip();
                                    matches.add(ws.display(file) + ":" + (i + 1) + ": "
                                            + (text.length() > 300 ? text.substring(0, 300) + "..." : text));
                                }
                            }
                        }
                    });
                    if (total[0] == 0) {
                        return "No matches.";
                    }
                    if (total[0] > SEARCH_LIMIT) {
                        return String.join("\n", matches.subList(0, SEARCH_SHOWN)) + "\n... " + (total[0] - SEARCH_SHOWN)
                                + " more matches (" + total[0] + " in all); narrow it with path, glob or a longer pattern.";
                    }
                    return String.join("\n", matches);
                });
    }

    private static boolean isBinary(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(8_192);
            for (byte b : head) {
                if (b == 0) {
                    return true;
                }
            }
        }
        return false;
    }

    private static AiTool<WriteInput, String> write(Workspace ws) {
        return AiTool.of("file_write", "Create or overwrite a file of the workspace with the given content, creating "
                + "missing directories. Returns the path and size written.", WriteInput.class, SafetyTier.SIDE_EFFECTING,
                (in, ctx) -> {
                    Path file = ws.writable(in.path());
                    if (Files.isDirectory(file)) {
                        throw new ToolException("'" + in.path() + "' is a directory.");
                    }
                    SandboxUser.forThisJvm().createDirectories(file.getParent());
                    atomicWrite(file, in.content());
                    return "Wrote " + in.content().getBytes(StandardCharsets.UTF_8).length + " bytes to " + ws.display(file) + ".";
                });
    }

    /** Writes {@code file} whole or not at all; for a root JVM, owned as {@link SandboxUser#temporaryFileFor} says. */
    static void atomicWrite(Path file, String content) throws IOException {
        Path tmp = SandboxUser.forThisJvm().temporaryFileFor(file);
        try {
            Files.write(tmp, content.getBytes(StandardCharsets.UTF_8), LinkOption.NOFOLLOW_LINKS, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** {@code file_edit}: an exact, unique replacement, shown as a unified diff (also to the approver). */
    static final class EditTool implements AiTool<EditInput, String> {
        private final Workspace ws;

        EditTool(Workspace ws) {
            this.ws = ws;
        }

        @Override
        public ToolInfo info() {
            return new ToolInfo("file_edit",
                "Change a file of the workspace by replacing an exact piece of text (old_text must occur exactly once; "
                    + "include surrounding lines to make it unique). Returns the change as a unified diff.",
                SafetyTier.SIDE_EFFECTING, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);
        }

        @Override
        public Class<EditInput> inputType() {
            return EditInput.class;
        }

        /** The edited content and its diff, checked but not written. */
        private record Planned(Path file, String updated, String diff) {
        }

        private Planned plan(EditInput in) throws IOException {
            if (in.oldText().isEmpty()) {
                throw new ToolException("old_text is empty; give the exact text to replace (use file_write to create a file).");
            }
            Path file = ws.writable(in.path());
            if (!Files.isRegularFile(file)) {
                throw new ToolException("There is no file '" + in.path() + "'; create it with file_write.");
            }
            String original = String.join("\n", textLines(file, in.path()));
            String raw = Files.readString(file, StandardCharsets.UTF_8);
            int first = raw.indexOf(in.oldText());
            if (first < 0) {
                throw new ToolException("old_text was not found in " + ws.display(file) + ". "
                        + TextMatch.closestLines(original, in.oldText()) + "Copy the text exactly, including whitespace.");
            }
            if (raw.indexOf(in.oldText(), first + 1) >= 0) {
                throw new ToolException("old_text occurs more than once in " + ws.display(file)
                        + "; include more surrounding text so that it matches exactly once.");
            }
            String updated = raw.substring(0, first) + in.newText() + raw.substring(first + in.oldText().length());
            List<String> before = List.of(raw.split("\n", -1));
            List<String> after = List.of(updated.split("\n", -1));
            Patch<String> patch = DiffUtils.diff(before, after);
            String name = ws.display(file);
            String diff = String.join("\n", UnifiedDiffUtils.generateUnifiedDiff("a/" + name, "b/" + name, before, patch, 3));
            return new Planned(file, updated, diff);
        }

        @Override
        public Optional<String> approvalPreview(EditInput input, ToolContext context) throws Exception {
            return Optional.of(plan(input).diff());
        }

        @Override
        public String execute(EditInput input, ToolContext context) throws Exception {
            Planned p = plan(input);
            atomicWrite(p.file(), p.updated());
            return p.diff();
        }
    }

    /**
     * {@code file_delete}: privileged, the one workspace tool that destroys; it asks in AUTO mode, shows
     * what it will delete, and an approval for the session covers only that path.
     */
    static final class DeleteTool implements AiTool<DeleteInput, String> {
        private static final ToolInfo INFO = new ToolInfo("file_delete", "Delete a file (or an empty directory) of the "
                + "workspace. It asks the user first.", SafetyTier.PRIVILEGED, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);
        private final Workspace ws;

        DeleteTool(Workspace ws) {
            this.ws = ws;
        }

        @Override
        public ToolInfo info() {
            return INFO;
        }

        @Override
        public Class<DeleteInput> inputType() {
            return DeleteInput.class;
        }

        @Override
        public Optional<String> approvalPreview(DeleteInput in, ToolContext context) {
            Path file = ws.writable(in.path());
            return Optional.of("delete " + ws.display(file) + (Files.isDirectory(file) ? "/ (an empty directory)"
                    : Files.exists(file) ? " (" + size(file) + ")" : " (it does not exist)"));
        }

        @Override
        public Optional<String> approvalScope(DeleteInput in) {
            return Optional.of(in.path());
        }

        @Override
        public String execute(DeleteInput in, ToolContext ctx) throws IOException {
            Path file = ws.writable(in.path());
            if (file.equals(ws.root())) {
                throw new ToolException("The workspace root cannot be deleted.");
            }
            try {
                Files.delete(file);
            } catch (NoSuchFileException e) {
                throw new ToolException("There is no file '" + in.path() + "'.");
            } catch (DirectoryNotEmptyException e) {
                throw new ToolException("'" + in.path() + "' is a directory that is not empty; delete its files first.");
            }
            return "Deleted " + ws.display(file) + ".";
        }
    }
}

package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.Truncation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * {@code glob}: the workspace's files whose paths match a pattern, newest first (by modification time, then by path),
 * skipping what {@code .gitignore} ignores (with {@link GitIgnoreWalk}, as {@code file_list} and
 * {@code read_many_files} do). A pattern is relative to the directory searched: an absolute pattern, one with a
 * {@code ..} segment or starting with {@code ~} is refused before anything is read. A leading {@code **}{@code /}
 * also matches files at the top of that directory ({@code **}{@code /*.java} finds {@code A.java} too). At most
 * {@value #SHOWN} paths, then how many more matched.
 */
final class GlobTool implements AiTool<GlobTool.Input, String> {
    static final String NAME = "glob";
    static final int SHOWN = 100;
    private static final ToolInfo INFO = new ToolInfo(NAME, "Find files of the workspace by path pattern (such as **/*.java, "
            + "src/**/Test*.java or docs/*.md), skipping what .gitignore ignores. Returns their paths, newest first (by "
            + "modification time); at most " + SHOWN + ", then how many more matched. Patterns are relative to the workspace "
            + "root (or to path).", SafetyTier.READ_ONLY, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);

    record Input(@JsonPropertyDescription("Glob of the paths to find, relative to the workspace root (or to path): * any "
            + "name part, ** any directories, ? one character, {a,b} either, [abc] one of. E.g. \"**/*.md\".") String pattern,
            @JsonPropertyDescription("Directory to search, relative to the workspace root; default the root.") Optional<String> path) {
    }

    private record Found(Path file, FileTime modified) {
    }

    private final Workspace ws;

    GlobTool(Workspace ws) {
        this.ws = ws;
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public String execute(Input in, ToolContext context) throws IOException {
        String pattern = in.pattern().strip();
        if (pattern.isEmpty()) {
            throw new ToolException("pattern is empty; say which files to find, e.g. \"**/*.java\".");
        }
        if (pattern.startsWith("/") || pattern.startsWith("\\") || pattern.startsWith("~")
                || pattern.matches("^[A-Za-z]:.*")) {
            throw new ToolException("pattern '" + pattern + "' is not relative to the workspace; patterns are relative to "
                    + "the workspace root (or to path), e.g. \"src/**/*.java\".");
        }
        for (String part : pattern.split("[/\\\\]")) {
            if (part.equals("..")) {
                throw new ToolException("pattern '" + pattern + "' leads out of the directory it searches (..); glob finds "
                        + "files inside the workspace only. Give path to search another directory of the workspace.");
            }
        }
        Path dir = ws.readable(in.path().orElse("."));
        if (!Files.isDirectory(dir)) {
            throw new ToolException("'" + in.path().orElse(".") + "' is not a directory.");
        }
        PathMatcher matcher = FileTools.glob(pattern);
        Optional<PathMatcher> topLevel = pattern.startsWith("**/") ? Optional.of(FileTools.glob(pattern.substring(3)))
                : Optional.empty();
        List<Found> found = new ArrayList<>();
        GitIgnoreWalk.files(ws.root(), dir, file -> {
            Path rel = dir.relativize(file);
            if (matcher.matches(rel) || topLevel.filter(m -> rel.getNameCount() == 1 && m.matches(rel)).isPresent()) {
                found.add(new Found(file, modified(file)));
            }
        });
        String where = in.path().map(p -> " under " + p).orElse("");
        if (found.isEmpty()) {
            return "No files match '" + pattern + "'" + where + ".";
        }
        found.sort(Comparator.comparing(Found::modified).reversed().thenComparing(Found::file));
        StringBuilder out = new StringBuilder();
        out.append(found.size()).append(found.size() == 1 ? " file matches '" : " files match '").append(pattern).append("'")
                .append(where).append(", newest first:\n");
        found.stream().limit(SHOWN).forEach(f -> out.append(ws.display(f.file())).append('\n'));
        if (found.size() > SHOWN) {
            out.append("... and ").append(found.size() - SHOWN).append(" more; narrow the pattern or give path.\n");
        }
        return out.toString().stripTrailing();
    }

    private static FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }
}

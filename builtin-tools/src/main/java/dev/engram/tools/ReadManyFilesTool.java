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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code read_many_files}: the text files of the workspace that a glob matches, one after another, each
 * under a header with its path, skipping what {@code .gitignore} ignores and binary files, within a
 * budget: at most {@value #MAX_FILES} files and {@value #MAX_CHARS} characters in all; what did not fit
 * is named, so the model can read it with {@code file_read}.
 */
final class ReadManyFilesTool implements AiTool<ReadManyFilesTool.Input, String> {
    static final int MAX_FILES = 50;
    /** Within the pipeline's 16 KB output budget, so that the list of what did not fit is never cut off. */
    static final int MAX_CHARS = 14_000;
    private static final ToolInfo INFO = new ToolInfo("read_many_files", "Read several text files of the workspace at once: "
            + "every file matching a glob (e.g. src/**/*.java or docs/*.md), skipping what .gitignore ignores, each under a "
            + "'==> path <==' header. At most " + MAX_FILES + " files and " + MAX_CHARS + " characters in all; the answer "
            + "names the files that did not fit.", SafetyTier.READ_ONLY, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);

    record Input(@JsonPropertyDescription("Glob of the files to read, relative to the workspace root (or to path), e.g. "
            + "\"src/**/*.java\".") String glob,
            @JsonPropertyDescription("Directory to start from, relative to the workspace root; default the root.") Optional<String> path) {
    }

    private final Workspace ws;

    ReadManyFilesTool(Workspace ws) {
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
        if (in.glob().isBlank()) {
            throw new ToolException("glob is empty; say which files to read, e.g. \"docs/*.md\".");
        }
        Path dir = ws.readable(in.path().orElse("."));
        if (!Files.isDirectory(dir)) {
            throw new ToolException("'" + in.path().orElse(".") + "' is not a directory.");
        }
        PathMatcher matcher = FileTools.glob(in.glob());
        List<Path> matched = new ArrayList<>();
        GitIgnoreWalk.files(ws.root(), dir, file -> {
            if (matcher.matches(dir.relativize(file))) {
                matched.add(file);
            }
        });
        if (matched.isEmpty()) {
            return "No files match '" + in.glob() + "'" + (in.path().isPresent() ? " under " + in.path().get() : "") + ".";
        }
        StringBuilder out = new StringBuilder();
        List<String> left = new ArrayList<>();
        List<String> binary = new ArrayList<>();
        int read = 0;
        for (Path file : matched) {
            String shown = ws.display(file);
            if (read == MAX_FILES) {
                left.add(shown);
                continue;
            }
            List<String> lines;
            try {
                lines = FileTools.textLines(file, shown);
            } catch (ToolException e) {
                binary.add(shown);
                continue;
            }
            String text = String.join("\n", lines);
            String block = "==> " + shown + " <==\n" + text + "\n\n";
            if (out.length() + block.length() > MAX_CHARS) {
                left.add(shown + " (" + FileTools.size(file) + ")");
                continue;
            }
            out.append(block);
            read++;
        }
        if (!binary.isEmpty()) {
            out.append("Skipped binary files: ").append(String.join(", ", binary)).append(".\n");
        }
        if (!left.isEmpty()) {
            out.append("Not read, over the budget of ").append(MAX_FILES).append(" files or ").append(MAX_CHARS)
                    .append(" characters: ").append(String.join(", ", left)).append(". Read them with file_read, or narrow the glob.\n");
        }
        return out.toString().stripTrailing();
    }
}

package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolException;
import dev.engram.memory.AgentFile;
import dev.engram.memory.AgentFolders;
import dev.engram.memory.FileLimits;
import dev.engram.memory.FilePassage;
import dev.engram.memory.Folder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Letta's file tools, with Letta's names and argument shapes, over the files of the folders attached to the agent
 * ({@link AgentFolders}): {@code open_files} opens files (a window of lines each) in the agent's prompt, closing the least
 * recently used past its limit; {@code grep_files} finds lines by regular expression, 20 matches a page;
 * {@code semantic_search_files} finds passages by meaning and keywords (Engram's hybrid search of the files' passages).
 */
final class LettaFileTools {
    /** Matches shown per page of {@code grep_files}, as Letta. */
    static final int GREP_PAGE = 20;
    /** The most matches {@code grep_files} collects, as Letta. */
    static final int GREP_MAX = 1_000;
    /** The longest pattern {@code grep_files} takes, as Letta. */
    static final int MAX_PATTERN = 1_000;
    /** The most passages {@code semantic_search_files} returns, as Letta. */
    static final int SEARCH_MAX = 50;
    /** The lines of a passage {@code semantic_search_files} shows, as Letta. */
    static final int PASSAGE_LINES = 20;

    private LettaFileTools() {
    }

    record FileOpenRequest(@JsonPropertyDescription("Name of the file to open") String fileName,
            @JsonPropertyDescription("Optional offset for starting line number (0-indexed). If not specified, starts from "
                    + "beginning of file.") Optional<Integer> offset,
            @JsonPropertyDescription("Optional number of lines to view from offset (inclusive). If not specified, views to "
                    + "end of file.") Optional<Integer> length) {
    }

    record OpenFiles(@JsonPropertyDescription("List of file open requests, each specifying file name and optional view range.")
            List<FileOpenRequest> fileRequests,
            @JsonPropertyDescription("If True, closes all other currently open files first. Defaults to False.")
            Optional<Boolean> closeAllOthers) {
    }

    record GrepFiles(@JsonPropertyDescription("Keyword or regex pattern to search within file contents.") String pattern,
            @JsonPropertyDescription("Optional keyword or regex pattern to filter filenames to include in the search.")
            Optional<String> include,
            @JsonPropertyDescription("Number of lines of context to show before and after each match. Equivalent to `-C` in "
                    + "grep_files. Defaults to 1.") Optional<Integer> contextLines,
            @JsonPropertyDescription("Number of matches to skip before showing results. Used for pagination. The tool will "
                    + "tell you the exact offset to use for the next page.") Optional<Integer> offset) {
    }

    record SemanticSearchFiles(@JsonPropertyDescription("The search query text to find semantically similar content.")
            String query,
            @JsonPropertyDescription("Maximum number of results to return (default: 5)") Optional<Integer> limit) {
    }

    static List<AiTool<?, ?>> all(MemoryStore store, MemorySearch search, Function<Scope, FileLimits> limits) {
        AgentFolders folders = store.folders().agents();
        return List.of(
                LettaMemoryTools.tool("open_files", "Open one or more files and load their contents into the files section "
                        + "of your core memory (a window of lines each); the least recently used open files close when you "
                        + "pass your limit of open files.", SafetyTier.READ_ONLY, OpenFiles.class, (in, ctx) -> {
                    Scope agent = ToolScopes.of(ctx);
                    return open(folders, agent, limits.apply(agent), in);
                }),
                LettaMemoryTools.tool("grep_files", "Searches file contents for pattern matches with surrounding context. "
                        + "Results are paginated: 20 matches per call; the answer says which offset shows the next page.",
                        SafetyTier.READ_ONLY, GrepFiles.class, (in, ctx) -> grep(store, ToolScopes.of(ctx), in)),
                LettaMemoryTools.tool("semantic_search_files", "Searches file contents using semantic meaning rather than "
                        + "exact matches: finds conceptually related passages across your files.", SafetyTier.READ_ONLY,
                        SemanticSearchFiles.class, (in, ctx) -> semantic(store, search, ToolScopes.of(ctx), in)));
    }

    private static String open(AgentFolders folders, Scope agent, FileLimits limits, OpenFiles in) {
        List<FileOpenRequest> requests = in.fileRequests() == null ? List.of() : in.fileRequests();
        if (requests.isEmpty()) {
            throw new ToolException("No file requests provided");
        }
        if (requests.size() > limits.maxFilesOpen()) {
            throw new ToolException("Cannot open " + requests.size() + " files: exceeds configured maximum limit of "
                    + limits.maxFilesOpen() + " files");
        }
        List<AgentFile> attached = folders.named(agent);
        List<AgentFile> targets = new ArrayList<>();
        for (FileOpenRequest r : requests) {
            AgentFile f = folders.byName(agent, r.fileName()).orElseThrow(() -> new ToolException(r.fileName()
                    + " not attached - did you get the filename correct? Currently you have the following files attached: "
                    + attached.stream().map(AgentFile::name).toList()));
            if (r.offset().orElse(0) < 0) {
                throw new ToolException("Offset for file " + r.fileName() + " must be >= 0 (0-indexed), got " + r.offset().get());
            }
            if (r.length().isPresent() && r.length().get() < 1) {
                throw new ToolException("Length for file " + r.fileName() + " must be >= 1, got " + r.length().get());
            }
            int lines = f.lines().size();
            if (r.offset().orElse(0) > 0 && r.offset().get() >= lines) {
                throw new ToolException("File " + f.name() + " has only " + lines + " lines, but requested offset "
                        + (r.offset().get() + 1) + " is out of range");
            }
            targets.add(f);
        }
        List<String> names = targets.stream().map(AgentFile::name).toList();
        List<String> closedByRequest = in.closeAllOthers().orElse(false) ? folders.closeAll(agent, names) : List.of();
        List<String> closedByLimit = new ArrayList<>();
        List<String> summaries = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            FileOpenRequest r = requests.get(i);
            AgentFile f = targets.get(i);
            closedByLimit.addAll(folders.open(agent, f.file().id(), r.offset().orElse(0), r.length().orElse(0),
                    limits.maxFilesOpen()));
            String range = r.offset().isPresent() && r.length().isPresent()
                    ? " (lines " + (r.offset().get() + 1) + "-" + (r.offset().get() + r.length().get()) + ")"
                    : r.offset().isPresent() ? " (lines " + (r.offset().get() + 1) + "-end)" : "";
            summaries.add(f.name() + range);
        }
        closedByLimit.removeAll(names);
        StringBuilder out = new StringBuilder(summaries.size() == 1 ? "* Opened " + summaries.get(0)
                : "* Opened " + summaries.size() + " files: " + String.join(", ", summaries));
        if (!closedByRequest.isEmpty()) {
            out.append("\nNote: Closed ").append(closedByRequest.size()).append(" file(s) due to close_all_others=True: ")
                    .append(String.join(", ", closedByRequest));
        }
        if (!closedByLimit.isEmpty()) {
            out.append("\nNote: Closed ").append(closedByLimit.size())
                    .append(" least recently used file(s) due to open file limit: ").append(String.join(", ", closedByLimit));
        }
        return out.toString();
    }

    private record Match(String file, int line, List<String> context) {
    }

    /** Greps the agent's files, reading the text of only the files it searches, and none once it has all it collects. */
    private static String grep(MemoryStore store, Scope agent, GrepFiles in) {
        return grep(store.folders().agents().named(agent), f -> store.folders().file(agent.userId(), f.file().id())
                .map(t -> t.text().isEmpty() ? List.<String>of() : t.text().lines().toList()).orElse(List.of()), in);
    }

    /** {@code files} named, each one's lines from {@code linesOf}. */
    private static String grep(List<AgentFile> files, Function<AgentFile, List<String>> linesOf, GrepFiles in) {
        Pattern pattern = pattern(in.pattern(), "pattern");
        Optional<Pattern> include = in.include().filter(s -> !s.isBlank()).map(s -> pattern(s, "include"));
        int context = Math.max(0, in.contextLines().orElse(1));
        int offset = Math.max(0, in.offset().orElse(0));
        List<AgentFile> searched = files;
        if (include.isPresent()) {
            searched = files.stream().filter(f -> include.get().matcher(f.name()).find()).toList();
            if (searched.isEmpty()) {
                return "No files match the filename pattern '" + in.include().get() + "' (filtered " + files.size() + " files)";
            }
        }
        List<Match> matches = new ArrayList<>();
        Map<String, Integer> perFile = new LinkedHashMap<>();
        for (AgentFile f : searched) {
            if (matches.size() >= GREP_MAX) {
                break;
            }
            List<String> lines = linesOf.apply(f);
            for (int i = 0; i < lines.size() && matches.size() < GREP_MAX; i++) {
                if (pattern.matcher(new InterruptibleText(lines.get(i))).find()) {
                    List<String> around = new ArrayList<>();
                    for (int j = Math.max(0, i - context); j <= Math.min(lines.size() - 1, i + context); j++) {
                        around.add((j == i ? "> " : "  ") + (j + 1) + ": " + lines.get(j));
                    }
                    matches.add(new Match(f.name(), i + 1, around));
                    perFile.merge(f.name(), 1, Integer::sum);
                }
            }
        }
        if (matches.isEmpty()) {
            return "No matches found for pattern: '" + in.pattern() + "'"
                    + in.include().map(s -> " in files matching '" + s + "'").orElse("");
        }
        int end = Math.min(matches.size(), offset + GREP_PAGE);
        boolean capped = matches.size() >= GREP_MAX;
        String total = matches.size() + (capped ? "+" : "");
        StringBuilder out = new StringBuilder();
        if (offset >= matches.size()) {
            return "Offset " + offset + " exceeds total matches (" + total + "). No more results to show.";
        }
        out.append("Found ").append(total).append(" total matches across ").append(perFile.size()).append(" files (showing matches ")
                .append(offset + 1).append('-').append(end).append(" of ").append(total).append(")\n")
                .append("=".repeat(80)).append("\n\nFiles with matches:\n");
        perFile.forEach((name, n) -> out.append("  - ").append(name).append(": ").append(n).append(" matches\n"));
        for (Match m : matches.subList(offset, end)) {
            out.append("\n=== ").append(m.file()).append(':').append(m.line()).append(" ===\n")
                    .append(String.join("\n", m.context())).append('\n');
        }
        out.append('\n');
        if (end < matches.size()) {
            out.append("To see more matches, call: grep_files(pattern=\"").append(in.pattern()).append("\", offset=")
                    .append(end).append(')');
        } else {
            out.append("No more matches to show.");
        }
        return out.toString();
    }

    private static Pattern pattern(String text, String field) {
        if (text == null || text.isBlank()) {
            throw new ToolException(field + " is empty; give a keyword or regular expression.");
        }
        if (text.length() > MAX_PATTERN) {
            throw new ToolException("Pattern too complex: " + text.length() + " chars > " + MAX_PATTERN + " limit");
        }
        try {
            return Pattern.compile(text, Pattern.CASE_INSENSITIVE);
        } catch (PatternSyntaxException e) {
            throw new ToolException("Invalid regex pattern: " + e.getDescription() + " in '" + text + "'");
        }
    }

    private static String semantic(MemoryStore store, MemorySearch search, Scope agent, SemanticSearchFiles in) {
        if (in.query() == null || in.query().isBlank()) {
            throw new ToolException("query is empty; say what to look for.");
        }
        int limit = Math.min(in.limit().orElse(5), SEARCH_MAX);
        if (limit < 1) {
            throw new ToolException("limit must be positive, got " + in.limit().get() + ".");
        }
        List<Folder> attached = store.folders().agents().attached(agent);
        if (attached.isEmpty()) {
            return "No semantic matches found for query: '" + in.query() + "' (no folder is attached to you)";
        }
        List<SearchHit> hits = search.search(SearchRequest.builder(agent, in.query()).domains(SearchDomain.FILES)
                .folders(attached.stream().map(Folder::id).toList()).k(limit).build());
        Map<String, String> names = new LinkedHashMap<>();
        store.folders().agents().named(agent).forEach(f -> names.put(f.file().id(), f.name()));
        Map<String, List<String>> byFile = new LinkedHashMap<>();
        int total = 0;
        for (SearchHit h : hits) {
            Optional<FilePassage> p = store.folders().passage(agent.userId(), h.id());
            if (p.isEmpty() || !names.containsKey(p.get().fileId())) {
                continue;
            }
            byFile.computeIfAbsent(p.get().fileId(), k -> new ArrayList<>()).add(p.get().text());
            total++;
        }
        if (total == 0) {
            return "No semantic matches found for query: '" + in.query() + "'";
        }
        String summary = "Found " + total + " semantic matches in " + byFile.size() + " file" + (byFile.size() == 1 ? "" : "s")
                + " for query: '" + in.query() + "'";
        StringBuilder out = new StringBuilder(summary).append('\n').append("=".repeat(summary.length()));
        int n = 0;
        for (Map.Entry<String, List<String>> e : byFile.entrySet()) {
            for (String text : e.getValue()) {
                out.append("\n\n=== ").append(names.get(e.getKey())).append(" (passage #").append(++n).append(") ===");
                List<String> lines = text.strip().lines().toList();
                lines.stream().limit(PASSAGE_LINES).forEach(l -> out.append("\n  ").append(l));
                if (lines.size() > PASSAGE_LINES) {
                    out.append("\n  ... [truncated ").append(lines.size() - PASSAGE_LINES).append(" more lines]");
                }
            }
        }
        store.folders().agents().touch(agent, List.copyOf(byFile.keySet()));
        return out.toString();
    }
}

package dev.engram.memory;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A file of a folder attached to an agent, as the agent has it: the file and its folder, whether it is open, and the
 * window of lines it sees (Letta's {@code FileAgent}).
 *
 * @param folder         the file's folder
 * @param file           the file, with its whole text
 * @param open           whether the file is open in the agent's prompt
 * @param offset         the first line of the window, 0-based
 * @param length         how many lines the window shows; 0: to the end
 * @param lastAccessedAt when the agent last opened or searched it; empty if never
 */
public record AgentFile(Folder folder, FolderFile file, boolean open, int offset, int length, Optional<Instant> lastAccessedAt) {
    /** A note Letta puts at the end of a window cut to its character limit. */
    public static final String TRUNCATED = "...[TRUNCATED]\n# NOTE: This block is truncated, use functions to view the full content.";

    public AgentFile {
        Checks.notNull(folder, "folder");
        Checks.notNull(file, "file");
        Checks.notNull(lastAccessedAt, "last access");
    }

    /**
     * The name the agent knows the file by, as Letta names it: {@code folder/file} (an upload's name already starts with
     * its folder's).
     */
    public String name() {
        return file.name().startsWith(folder.name() + "/") ? file.name() : folder.name() + "/" + file.name();
    }

    /** The file's lines. */
    public List<String> lines() {
        return file.text().isEmpty() ? List.of() : file.text().lines().toList();
    }

    /**
     * What the agent sees of the open file (empty when closed): its window's lines, each numbered from 1 as Letta's line
     * chunker numbers them, after a line saying which lines they are when the window is not the whole file; cut to
     * {@code charLimit} characters with Letta's note when longer.
     */
    public String visibleContent(int charLimit) {
        if (!open) {
            return "";
        }
        List<String> all = lines();
        int from = Math.min(offset, all.size());
        int to = length == 0 ? all.size() : Math.min(all.size(), from + length);
        StringBuilder out = new StringBuilder();
        if (offset > 0 || length > 0) {
            out.append("[Viewing lines ").append(from + 1).append(" to ").append(length == 0 ? "end" : String.valueOf(to))
                    .append(" (out of ").append(all.size()).append(" lines)]\n");
        }
        for (int i = from; i < to; i++) {
            out.append(i + 1).append(": ").append(all.get(i)).append('\n');
        }
        String text = out.toString().stripTrailing();
        if (text.length() > charLimit) {
            text = text.substring(0, Math.max(0, charLimit - TRUNCATED.length())) + TRUNCATED;
        }
        return text;
    }
}

package dev.engram.agents;

import dev.engram.memory.AgentFile;
import dev.engram.memory.FileLimits;
import dev.engram.memory.Folder;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import java.util.List;

/**
 * The {@code <directories>} section of an agent's system prompt, as Letta renders it: the folders attached to the agent,
 * each with its description and instructions, and each file of them as a read-only file block, open (its window of
 * lines, numbered, cut to the agent's per-file character limit) or closed. Nothing when no folder is attached. Only the
 * open files' texts are read (a closed file shows its name only).
 */
final class FilePrompt {
    private FilePrompt() {
    }

    /** The section for the agent of {@code scope}, under {@code limits}; that none is attached is kept in {@code parts}. */
    static String render(MemoryStore store, Scope scope, FileLimits limits, PromptParts parts) {
        List<Folder> folders = parts.storedFolders(scope, () -> store.folders().agents().attached(scope));
        if (folders.isEmpty()) {
            return "";
        }
        return render(folders, store.folders().agents().view(scope), limits);
    }

    static String render(List<Folder> folders, List<AgentFile> files, FileLimits limits) {
        StringBuilder out = new StringBuilder("<directories>\n<file_limits>\n- current_files_open=")
                .append(files.stream().filter(AgentFile::open).count()).append("\n- max_files_open=")
                .append(limits.maxFilesOpen()).append("\n</file_limits>\n");
        for (Folder folder : folders) {
            out.append("<directory name=\"").append(folder.name()).append("\">\n");
            if (!folder.description().isEmpty()) {
                out.append("<description>").append(folder.description()).append("</description>\n");
            }
            if (!folder.instructions().isEmpty()) {
                out.append("<instructions>").append(folder.instructions()).append("</instructions>\n");
            }
            for (AgentFile f : files) {
                if (!f.folder().id().equals(folder.id())) {
                    continue;
                }
                String value = f.visibleContent(limits.viewWindowChars());
                out.append("<file status=\"").append(f.open() ? "open" : "closed").append("\" name=\"").append(f.name())
                        .append("\">\n<metadata>\n- read_only=true\n- chars_current=").append(value.length())
                        .append("\n- chars_limit=").append(limits.viewWindowChars()).append("\n</metadata>\n");
                if (!value.isEmpty()) {
                    out.append("<value>\n").append(value).append("\n</value>\n");
                }
                out.append("</file>\n");
            }
            out.append("</directory>\n");
        }
        return out.append("</directories>\n\n").toString();
    }
}

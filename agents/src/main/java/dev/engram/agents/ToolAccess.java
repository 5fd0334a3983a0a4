package dev.engram.agents;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The workspace, shell and web tools an agent has of its own, kept with its definition so that it has
 * them wherever it runs: the file tools in {@code workspace}, {@code shell_exec} for the {@code shell}
 * programs (in that workspace), and {@code web_fetch} (with {@code web_search} when a search provider is
 * configured in the environment) when {@code web}.
 *
 * @param workspace the directory of the file tools, if any
 * @param shell     the programs {@code shell_exec} may run; empty: no shell
 * @param web       whether the agent may fetch (and search) the web
 */
public record ToolAccess(Optional<Path> workspace, List<String> shell, boolean web) {
    /** No workspace, no shell, no web. */
    public static final ToolAccess NONE = new ToolAccess(Optional.empty(), List.of(), false);

    /** The file tools' names. */
    static final List<String> FILE_TOOLS = List.of("file_read", "read_many_files", "glob", "file_list", "file_search", "file_write",
            "file_edit", "file_delete");

    public ToolAccess {
        workspace = Objects.requireNonNull(workspace, "workspace").map(p -> p.toAbsolutePath().normalize());
        shell = List.copyOf(Objects.requireNonNull(shell, "shell"));
        if (!shell.isEmpty() && workspace.isEmpty()) {
            throw new IllegalArgumentException("a shell needs a workspace to run in");
        }
        for (String program : shell) {
            if (program.isBlank() || program.contains("/") || program.contains(" ")) {
                throw new IllegalArgumentException("a shell program is a name such as git or ls, got '" + program + "'");
            }
        }
    }

    /** The names of the tools this access gives (web_search only counts when a provider is configured). */
    public List<String> toolNames() {
        List<String> names = new ArrayList<>();
        workspace.ifPresent(w -> names.addAll(FILE_TOOLS));
        if (!shell.isEmpty()) {
            names.add("shell_exec");
        }
        if (web) {
            names.add("web_fetch");
        }
        return names;
    }

    public boolean isNone() {
        return workspace.isEmpty() && shell.isEmpty() && !web;
    }
}

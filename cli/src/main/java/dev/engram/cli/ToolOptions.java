package dev.engram.cli;

import dev.engram.agents.AgentRuntime;
import dev.engram.agents.ToolAccess;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.SearchProviders;
import dev.engram.tools.ShellOptions;
import dev.engram.tools.WebFetcher;
import dev.engram.tools.Workspace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --workspace}, {@code --shell}, {@code --web} and {@code --code}: the tools beyond memory, off by default. For a
 * runtime (chat, tools) they are what every agent of that command may use; for {@code agent create} they
 * are kept with the agent, and {@code --code} gives it {@code execute_code}.
 */
final class ToolOptions {
    @Option(names = "--workspace", paramLabel = "DIR", description = "Give the file tools (file_read, read_many_files, glob, "
            + "file_list, file_search, file_write, file_edit, file_delete) this directory.")
    Path workspace;

    @Option(names = "--shell", paramLabel = "PROGRAM", split = ",", description = "Allow shell_exec to run these programs "
            + "(e.g. git,ls) in the workspace, sandboxed with bubblewrap where installed; off by default.")
    List<String> shell = new ArrayList<>();

    @Option(names = "--web", description = "Allow web_fetch, and web_search when BRAVE_API_KEY, TAVILY_API_KEY or "
            + "SEARXNG_URL is set; off by default.")
    boolean web;

    @Option(names = "--code", description = "Allow run_code and execute_code (code mode: a program that calls the agent's "
            + "tools): Python and JavaScript in the bubblewrap sandbox, no network; off by default.")
    boolean code;

    /** The tool {@code --code} gives an agent that {@code agent create} or {@code chat} makes. */
    static final String CODE_MODE = "execute_code";

    boolean any() {
        return workspace != null || !shell.isEmpty() || web;
    }

    /** What an agent created with these options keeps. */
    ToolAccess access() {
        try {
            return new ToolAccess(Optional.ofNullable(workspace), shell, web);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--shell needs --workspace: " + e.getMessage(), e);
        }
    }

    /** Enables the tools on a runtime. */
    void apply(AgentRuntime.Builder b, Map<String, String> environment) {
        if (!shell.isEmpty() && workspace == null) {
            throw new IllegalArgumentException("--shell needs --workspace: shell_exec runs in the workspace");
        }
        if (workspace != null) {
            b.workspace(Workspace.of(workspace));
            if (!shell.isEmpty()) {
                b.shell(ShellOptions.of(shell.toArray(String[]::new)));
            }
        }
        if (web) {
            b.web(WebFetcher.http(), SearchProviders.fromEnvironment(environment));
        }
        applyCode(b);
    }

    /** Enables code execution on a runtime when {@code --code} is given. */
    void applyCode(AgentRuntime.Builder b) {
        if (code) {
            b.code(CodeRunner.sandboxed());
        }
    }
}

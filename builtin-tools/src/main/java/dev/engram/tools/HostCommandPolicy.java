package dev.engram.tools;

import dev.engram.framework.ToolException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code shell_exec} refuses to run on the host, where nothing contains a command: arguments that
 * point outside the workspace, and, per program, the options and subcommands that run other programs
 * or write elsewhere. The git configuration that could run commands (hooks, fsmonitor, pagers, editors,
 * the user's and the system's config files) is switched off through the environment
 * ({@link #GIT_ENVIRONMENT}); {@code HOME} is a private directory outside the workspace.
 */
final class HostCommandPolicy {
    /** git subcommands that neither run other programs by design nor reach the network. */
    private static final Set<String> GIT_SUBCOMMANDS = Set.of("add", "apply", "blame", "branch", "checkout", "cherry-pick",
            "clean", "commit", "describe", "diff", "grep", "init", "log", "ls-files", "ls-tree", "merge", "mv", "reflog",
            "reset", "restore", "revert", "rev-parse", "rm", "shortlog", "show", "stash", "status", "switch", "tag", "version");
    /** git options that change which repository, config or program git uses, or where it writes. */
    private static final Set<String> GIT_OPTIONS = Set.of("-c", "--config-env", "--exec-path", "-C", "--git-dir", "--work-tree",
            "--output", "--exec", "--upload-pack", "--receive-pack", "-O", "--open-files-in-pager", "--ext-diff", "--textconv",
            "--namespace", "--super-prefix");
    /** find actions that run programs or write files. */
    private static final Set<String> FIND_OPTIONS = Set.of("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
            "-fprint0", "-fprintf", "-fls");
    /** git configuration forced for every command: nothing git runs or reads is the agent's to choose. */
    static final Map<String, String> GIT_ENVIRONMENT = gitEnvironment(List.of(
            "core.hooksPath", "/dev/null", "core.fsmonitor", "false", "core.pager", "cat", "core.editor", "true",
            "core.sshCommand", "false", "diff.external", "", "protocol.allow", "never", "credential.helper", ""));

    private HostCommandPolicy() {
    }

    private static Map<String, String> gitEnvironment(List<String> pairs) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("GIT_PAGER", "cat");
        env.put("PAGER", "cat");
        env.put("GIT_CONFIG_COUNT", Integer.toString(pairs.size() / 2));
        for (int i = 0; i < pairs.size(); i += 2) {
            env.put("GIT_CONFIG_KEY_" + i / 2, pairs.get(i));
            env.put("GIT_CONFIG_VALUE_" + i / 2, pairs.get(i + 1));
        }
        return Map.copyOf(env);
    }

    /** Refuses {@code words} (program first) unless the policy allows them in {@code cwd} of {@code workspace}. */
    static void check(List<String> words, Workspace workspace, Path cwd) {
        String program = Path.of(words.getFirst()).getFileName().toString();
        List<String> args = words.subList(1, words.size());
        for (String arg : args) {
            String option = arg.startsWith("-") && arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (program.equals("git") && (GIT_OPTIONS.contains(option) || (option.startsWith("-c") && option.length() > 2
                    && !option.startsWith("--")))) {
                throw refused(arg, "git option " + option + " changes which configuration, repository or program git uses");
            }
            if (program.equals("find") && FIND_OPTIONS.contains(option)) {
                throw refused(arg, "find action " + option + " runs a program or writes a file");
            }
            String value = arg.startsWith("-") && arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : arg;
            if (value.startsWith("~") || ((value.contains("/") || value.equals("..")) && !value.contains("://")
                    && !cwd.resolve(value).normalize().startsWith(workspace.root()))) {
                throw refused(arg, "it points outside the workspace");
            }
        }
        if (program.equals("git")) {
            String sub = args.stream().filter(a -> !a.startsWith("-")).findFirst().orElse("");
            if (!sub.isEmpty() && !GIT_SUBCOMMANDS.contains(sub)) {
                throw refused(sub, "git " + sub + " is not one of the subcommands allowed here ("
                        + String.join(", ", GIT_SUBCOMMANDS.stream().sorted().toList()) + "); aliases and commands that "
                        + "run other programs or reach the network are not");
            }
        }
    }

    private static ToolException refused(String arg, String why) {
        return new ToolException("The argument '" + arg + "' is refused: " + why + ". Nothing was run. (Commands run on "
                + "the host here; a bubblewrap sandbox would contain them: apt-get install bubblewrap.)");
    }
}

package dev.engram.tools;

import dev.engram.framework.ToolException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@code shell_exec} refuses to run on the host (the explicit, unsandboxed backend), where nothing contains a
 * command: programs that launch other programs from their arguments (env, xargs, nice, timeout, shells and
 * interpreters); arguments that point outside the workspace, judged on their real paths (a symbolic link in the
 * workspace that leaves it is outside), including values attached to options ({@code --file=/etc/x},
 * {@code -f/etc/x}, {@code -xf/etc/x}) and after {@code =} ({@code if=/etc/x}); and, per program, the options and
 * subcommands that run other programs, write elsewhere or move git to another repository (every git option before
 * the subcommand but a few harmless ones, {@code --separate-git-dir}, {@code --template}, {@code --git-dir},
 * {@code --work-tree}, abbreviations included, and a {@code .git} that is a file or a link: a gitfile pointing
 * elsewhere). The git configuration that could run commands (hooks, fsmonitor, pagers, editors, the user's and the
 * system's config files) is switched off through the environment ({@link #GIT_ENVIRONMENT}), which also makes git
 * write symbolic links as plain files ({@code core.symlinks=false}: {@code git apply} cannot plant one) and refuse
 * bare repositories it was not told about ({@code safe.bareRepository=explicit}: a directory the agent wrote cannot
 * pose as a repository with its own filter drivers); {@code HOME} is a private directory outside the workspace.
 */
final class HostCommandPolicy {
    /** git subcommands that neither run other programs by design nor reach the network. */
    private static final Set<String> GIT_SUBCOMMANDS = Set.of("add", "apply", "blame", "branch", "checkout", "cherry-pick",
            "clean", "commit", "describe", "diff", "grep", "init", "log", "ls-files", "ls-tree", "merge", "mv", "reflog",
            "reset", "restore", "revert", "rev-parse", "rm", "shortlog", "show", "stash", "status", "switch", "tag", "version");
    /** The only git options allowed before the subcommand: none of them changes what git reads, runs or writes. */
    private static final Set<String> GIT_GLOBAL_OPTIONS = Set.of("--no-pager", "-P", "-p", "--paginate",
            "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
            "--no-replace-objects", "--version", "--help", "-v", "-h");
    /** git options (after the subcommand) that change which repository, config or program git uses, or where it writes. */
    private static final List<String> GIT_OPTIONS = List.of("--config-env", "--exec-path", "--git-dir", "--work-tree",
            "--separate-git-dir", "--template", "--output", "--exec", "--upload-pack", "--receive-pack",
            "--open-files-in-pager", "--ext-diff", "--textconv", "--namespace", "--super-prefix", "--unsafe-paths", "--filters");
    /** find actions that run programs or write files. */
    private static final Set<String> FIND_OPTIONS = Set.of("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint",
            "-fprint0", "-fprintf", "-fls");
    /** Programs that run the program their arguments name, or code their arguments give: refused with any argument. */
    private static final Set<String> LAUNCHERS = Set.of("env", "xargs", "nice", "timeout", "nohup", "stdbuf", "setsid",
            "ionice", "chrt", "taskset", "flock", "chroot", "unshare", "nsenter", "setpriv", "sudo", "su", "doas", "runuser",
            "strace", "ltrace", "gdb", "time", "watch", "script", "busybox", "parallel", "sh", "bash", "dash", "zsh", "ksh",
            "fish", "csh", "tcsh", "python", "python3", "perl", "ruby", "node", "php", "lua", "tclsh", "awk", "gawk", "mawk",
            "nawk");
    /** git configuration forced for every command: nothing git runs or reads is the agent's to choose. */
    static final Map<String, String> GIT_ENVIRONMENT = gitEnvironment(List.of(
            "core.hooksPath", "/dev/null", "core.fsmonitor", "false", "core.pager", "cat", "core.editor", "true",
            "core.sshCommand", "false", "diff.external", "", "protocol.allow", "never", "credential.helper", "",
            "core.symlinks", "false", "safe.bareRepository", "explicit"));

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
        if (!args.isEmpty() && (LAUNCHERS.contains(program) || program.matches("python[0-9.]*|perl[0-9.]*"))) {
            throw refused(args.getFirst(), program + " runs the program or code its arguments name, which the argument "
                    + "checks cannot follow");
        }
        if (program.equals("find")) {
            for (String arg : args) {
                if (FIND_OPTIONS.contains(arg)) {
                    throw refused(arg, "find action " + arg + " runs a program or writes a file");
                }
            }
        }
        if (program.equals("git")) {
            checkGit(args, workspace, cwd);
        }
        for (String arg : args) {
            for (String value : pathCandidates(arg)) {
                checkPath(arg, value, workspace, cwd);
            }
        }
    }

    private static void checkGit(List<String> args, Workspace workspace, Path cwd) {
        int i = 0;
        while (i < args.size() && args.get(i).startsWith("-")) {
            String arg = args.get(i);
            String option = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (!GIT_GLOBAL_OPTIONS.contains(arg)) {
                throw refused(arg, "git option " + option + " changes which configuration, repository or program git uses; "
                        + "before the subcommand only " + String.join(", ", GIT_GLOBAL_OPTIONS.stream().sorted().toList())
                        + " are allowed");
            }
            i++;
        }
        String sub = i < args.size() ? args.get(i) : "";
        if (!sub.isEmpty() && !GIT_SUBCOMMANDS.contains(sub)) {
            throw refused(sub, "git " + sub + " is not one of the subcommands allowed here ("
                    + String.join(", ", GIT_SUBCOMMANDS.stream().sorted().toList()) + "); aliases and commands that "
                    + "run other programs or reach the network are not");
        }
        for (String arg : args.subList(Math.min(i + 1, args.size()), args.size())) {
            if (arg.equals("--")) {
                break;
            }
            String option = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (option.startsWith("--") && option.length() > 2) {
                for (String bad : GIT_OPTIONS) {
                    if (bad.startsWith(option)) {
                        throw refused(arg, "git option " + bad + (bad.equals(option) ? "" : " (abbreviated " + option + ")")
                                + " changes which configuration, repository or program git uses, or where it writes");
                    }
                }
            } else if (sub.equals("grep") && option.startsWith("-") && !option.startsWith("--") && option.indexOf('O') > 0) {
                throw refused(arg, "git grep -O opens the matches in a program it names");
            }
        }
        for (Path dir = cwd; dir != null && dir.startsWith(workspace.root()); dir = dir.getParent()) {
            Path dotGit = dir.resolve(".git");
            if (Files.exists(dotGit, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS)) {
                throw refused(workspace.display(dotGit), "it is a file or a link, not a directory: a gitfile that moves git "
                        + "to another repository and its configuration, which the checks cannot see");
            }
        }
    }

    /**
     * What in an argument may name a file: the argument itself, what follows each {@code =}, and, in a cluster of
     * short options, whatever could be an attached value ({@code -f/etc/x}, {@code -xf/etc/x}).
     */
    private static List<String> pathCandidates(String arg) {
        List<String> out = new ArrayList<>();
        if (!arg.startsWith("-")) {
            out.add(arg);
        } else if (!arg.startsWith("--")) {
            for (int i = 1; i < arg.length(); i++) {
                out.add(arg.substring(i));
            }
        }
        for (int i = arg.indexOf('='); i >= 0; i = arg.indexOf('=', i + 1)) {
            out.add(arg.substring(i + 1));
        }
        return out;
    }

    private static void checkPath(String arg, String value, Workspace workspace, Path cwd) {
        if (value.isEmpty()) {
            return;
        }
        if (value.startsWith("~")) {
            throw refused(arg, "it points outside the workspace");
        }
        Path lexical;
        try {
            lexical = cwd.resolve(value).normalize();
        } catch (InvalidPathException e) {
            return;
        }
        if (!lexical.startsWith(workspace.root())) {
            throw refused(arg, "it points outside the workspace");
        }
        Path real;
        try {
            real = Workspace.realPath(lexical);
        } catch (UncheckedIOException e) {
            throw refused(arg, "its path cannot be resolved (" + e.getCause().getMessage() + ")");
        }
        if (!real.startsWith(workspace.root())) {
            throw refused(arg, "it leads outside the workspace through a symbolic link");
        }
    }

    private static ToolException refused(String arg, String why) {
        return new ToolException("The argument '" + arg + "' is refused: " + why + ". Nothing was run. (Commands run "
                + "unsandboxed on the host here; a bubblewrap sandbox would contain them: " + Bubblewrap.INSTALL + ".)");
    }
}

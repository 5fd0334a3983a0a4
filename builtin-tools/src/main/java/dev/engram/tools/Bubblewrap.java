package dev.engram.tools;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bubblewrap sandbox {@code shell_exec} runs commands in: the system directories read-only, the
 * workspace read-write (only its writable roots, when it has some), a private {@code /tmp} holding
 * {@code HOME}, no network and no other namespace shared with the host (user, PID, IPC, UTS,
 * cgroup), a session of its own, and killed with its parent. Nothing else of the host is visible.
 */
final class Bubblewrap {
    /** The sandbox's HOME: inside its private {@code /tmp}. */
    static final String HOME = "/tmp/home";

    private final Path executable;

    private Bubblewrap(Path executable) {
        this.executable = executable;
    }

    /** {@code bwrap} on the PATH, if there is one. */
    static Optional<Bubblewrap> find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "bwrap");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(new Bubblewrap(candidate));
            }
        }
        return Optional.empty();
    }

    Path executable() {
        return executable;
    }

    /** The command line that runs {@code command} in the sandbox, in {@code cwd} (inside the workspace). */
    List<String> wrap(Workspace workspace, Path cwd, List<String> command) {
        List<String> argv = new ArrayList<>(List.of(executable.toString(), "--die-with-parent", "--new-session",
                "--unshare-all", "--ro-bind", "/usr", "/usr"));
        for (String dir : List.of("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")) {
            Path p = Path.of(dir);
            if (Files.isSymbolicLink(p)) {
                try {
                    argv.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), dir));
                } catch (java.io.IOException e) {
                    // leave it out: the command then lacks that directory, which is safe
                }
            } else if (Files.isDirectory(p)) {
                argv.addAll(List.of("--ro-bind", dir, dir));
            }
        }
        for (String file : List.of("/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group")) {
            argv.addAll(List.of("--ro-bind-try", file, file));
        }
        argv.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", HOME, "--setenv", "HOME", HOME));
        String root = workspace.root().toString();
        argv.addAll(List.of("--ro-bind", root, root));
        for (Path writable : workspace.writableRoots()) {
            argv.addAll(List.of("--bind", writable.toString(), writable.toString()));
        }
        argv.addAll(List.of("--chdir", cwd.toString(), "--"));
        argv.addAll(command);
        return argv;
    }
}

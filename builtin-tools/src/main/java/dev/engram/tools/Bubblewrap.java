package dev.engram.tools;

import dev.engram.framework.ToolException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bubblewrap sandbox {@code shell_exec} and the Python tools run in: the system directories read-only,
 * the workspace read-write (only its writable roots, when it has some), a private {@code /tmp} of bounded
 * size holding {@code HOME}, no network and no other namespace shared with the host (user, PID, IPC, UTS,
 * cgroup), a session of its own, and killed with its parent. Every capability is dropped (so nothing inside
 * can remount a read-only bind writable, even when the JVM is root), {@code bwrap} itself starts as the
 * {@link SandboxUser} (a root JVM's sandbox is uid and gid 65534 on the host, through {@code setpriv}), and the
 * {@link SandboxLimits} are set inside with {@code prlimit} before the command starts. Nothing else of the host is
 * visible.
 */
final class Bubblewrap {
    /** The sandbox's HOME: inside its private {@code /tmp}. */
    static final String HOME = "/tmp/home";

    /** Sets the rlimits inside the sandbox; util-linux, which Debian always installs, provides it. */
    static final Path PRLIMIT = Path.of("/usr/bin/prlimit");
    /** What to install when there is no sandbox. */
    static final String INSTALL = "apt-get install bubblewrap util-linux";

    private final Path executable;
    private final SandboxUser user;

    private Bubblewrap(Path executable, SandboxUser user) {
        this.executable = executable;
        this.user = user;
    }

    /** {@code bwrap} at {@code executable}, started as {@code user} (tests choose the user a JVM would have). */
    static Bubblewrap at(Path executable, SandboxUser user) {
        return new Bubblewrap(executable, user);
    }

    /**
     * {@code bwrap} on the PATH, if there is one and {@code /usr/bin/prlimit} exists to set the limits inside, started as
     * this JVM's {@link SandboxUser} (whose {@link SandboxUser#refusal()} says when it cannot start at all).
     */
    static Optional<Bubblewrap> find() {
        return find(Optional.ofNullable(System.getenv("PATH")).orElse(""));
    }

    /** {@code bwrap} on this search path, if there is one and {@code /usr/bin/prlimit} exists. */
    static Optional<Bubblewrap> find(String searchPath) {
        if (!Files.isExecutable(PRLIMIT)) {
            return Optional.empty();
        }
        for (String dir : searchPath.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, "bwrap");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(new Bubblewrap(candidate, SandboxUser.forThisJvm()));
            }
        }
        return Optional.empty();
    }

    Path executable() {
        return executable;
    }

    /**
     * The first {@code name} on the PATH, then in {@code /usr/bin}, whose real path is under {@code /usr}: the only
     * system directory the sandbox shows, so the one place an interpreter it runs can come from (a pyenv shim in
     * {@code /root} could not run inside).
     */
    static Optional<Path> programUnderUsr(String name) {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        List<String> dirs = new ArrayList<>(List.of(path.split(File.pathSeparator)));
        dirs.add("/usr/bin");
        for (String dir : dirs) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate) && underUsr(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static boolean underUsr(Path p) {
        try {
            return p.toRealPath().startsWith("/usr/");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** Who the sandbox's processes are on the host. */
    SandboxUser user() {
        return user;
    }

    /**
     * The command line that runs {@code command} in the sandbox, in {@code cwd} (inside the workspace), under
     * {@code limits}: {@code bwrap}, behind the {@link SandboxUser#launcher()} that makes it the sandbox's user.
     *
     * @throws IllegalStateException when no sandbox can start ({@link SandboxUser#refusal()})
     * @throws ToolException when the sandbox's user cannot read the workspace or write one of its writable roots
     *                       ({@link SandboxUser#checkAccess})
     */
    List<String> wrap(Workspace workspace, Path cwd, List<String> command, SandboxLimits limits) {
        List<String> argv = new ArrayList<>(user.launcher());
        user.checkAccess(workspace, cwd);
        // No --uid/--gid: inside a user namespace that root starts, any uid is root outside; the launcher changes the
        // real user instead, and bwrap maps that user to itself.
        argv.addAll(List.of(executable.toString(), "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL"));
        argv.addAll(List.of("--ro-bind", "/usr", "/usr"));
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
        argv.addAll(List.of("--proc", "/proc"));
        // The kernel's settings read-only, whoever the sandbox's user is (they are root's, and a sandbox that were root
        // outside could write kernel.core_pattern, run as root on the host at the next crash).
        argv.addAll(List.of("--ro-bind", "/proc/sys", "/proc/sys"));
        for (String dir : List.of("/proc/sysrq-trigger", "/proc/irq", "/proc/bus")) {
            argv.addAll(List.of("--ro-bind-try", dir, dir));
        }
        argv.addAll(List.of("--dev", "/dev", "--size", Long.toString(limits.tmpBytes()),
                "--tmpfs", "/tmp", "--dir", HOME, "--setenv", "HOME", HOME));
        String root = workspace.root().toString();
        argv.addAll(List.of("--ro-bind", root, root));
        for (Path writable : workspace.writableRoots()) {
            argv.addAll(List.of("--bind", writable.toString(), writable.toString()));
        }
        // CPU time: SIGXCPU at the limit, SIGKILL a second later for a process that ignores SIGXCPU.
        argv.addAll(List.of("--chdir", cwd.toString(), "--", PRLIMIT.toString(), "--as=" + limits.addressSpaceBytes(),
                "--nproc=" + limits.processes(), "--fsize=" + limits.fileSizeBytes(),
                "--cpu=" + limits.cpuSeconds() + ":" + (limits.cpuSeconds() + 1L), "--"));
        argv.addAll(command);
        return argv;
    }
}

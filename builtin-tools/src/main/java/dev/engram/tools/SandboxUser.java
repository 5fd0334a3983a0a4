package dev.engram.tools;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import dev.engram.framework.ToolException;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who the bubblewrap sandbox's processes are on the host: the one place that decides it. A JVM that is not root
 * starts {@code bwrap} as itself, so the sandbox is the JVM's own user. A root JVM starts it through {@code setpriv
 * --reuid=65534 --regid=65534 --clear-groups} (util-linux), so the sandbox is uid and gid 65534 on the host too: it
 * owns nothing of root's (the device nodes {@code --dev} binds in, root's files in a writable directory) and the
 * kernel applies {@code RLIMIT_NPROC} to it. A user namespace started by root would map any uid inside to root
 * outside, which is why {@code bwrap --uid} is not enough. Without {@code setpriv} a root JVM has no sandbox at all
 * (never a weaker one): {@link #refusal()} says what to install.
 *
 * <p>As uid 65534 the sandbox reaches only what that user may: {@link #checkAccess} refuses, naming the directory
 * and the command that fixes it, a workspace it could not read or a writable directory it could not write.
 */
final class SandboxUser {
    /** The unprivileged user and group a root JVM's sandbox runs as ({@code nobody} and {@code nogroup} on Debian). */
    static final int NOBODY = 65534;
    /** What to install for {@code setpriv}. */
    static final String INSTALL = "apt-get install util-linux";
    /** Where {@code setpriv} is looked for after the PATH. */
    private static final List<String> KNOWN_DIRS = List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin");

    private final int uid;
    private final int gid;
    private final boolean jvmIsRoot;
    private final Optional<Path> setpriv;

    private SandboxUser(int uid, int gid, boolean jvmIsRoot, Optional<Path> setpriv) {
        this.uid = uid;
        this.gid = gid;
        this.jvmIsRoot = jvmIsRoot;
        this.setpriv = setpriv;
    }

    /**
     * The sandbox's user for a JVM of effective uid {@code jvmUid} and gid {@code jvmGid}: uid 0 gives 65534 through
     * {@code setpriv} (or a refusal when there is none), any other uid gives the JVM's own user.
     */
    static SandboxUser of(int jvmUid, int jvmGid, Optional<Path> setpriv) {
        return jvmUid == 0 ? new SandboxUser(NOBODY, NOBODY, true, setpriv) : new SandboxUser(jvmUid, jvmGid, false, Optional.empty());
    }

    /**
     * The sandbox's user for this JVM, with {@code setpriv} looked for on the PATH and then in the system directories
     * (once: neither the JVM's user nor its PATH changes).
     */
    static SandboxUser forThisJvm() {
        return ThisJvm.USER;
    }

    private static final class ThisJvm {
        static final SandboxUser USER = decide();

        private static SandboxUser decide() {
            int[] ids = effectiveIds();
            return of(ids[0], ids[1], findSetpriv(Optional.ofNullable(System.getenv("PATH")).orElse("")));
        }
    }

    /** {@code setpriv} in this search path or in {@code /usr/bin}, {@code /bin}, {@code /usr/sbin} or {@code /sbin}. */
    static Optional<Path> findSetpriv(String searchPath) {
        Set<String> dirs = new LinkedHashSet<>(List.of(searchPath.split(File.pathSeparator)));
        dirs.addAll(KNOWN_DIRS);
        for (String dir : dirs) {
            if (dir.isEmpty() || !Path.of(dir).isAbsolute()) {
                continue;
            }
            Path candidate = Path.of(dir, "setpriv");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** This process's effective uid and gid, from {@code /proc/self/status}; the owner of {@code /proc/self} elsewhere. */
    private static int[] effectiveIds() {
        try {
            int uid = -1;
            int gid = -1;
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    uid = Integer.parseInt(line.substring(4).strip().split("\\s+")[1]);
                } else if (line.startsWith("Gid:")) {
                    gid = Integer.parseInt(line.substring(4).strip().split("\\s+")[1]);
                }
            }
            if (uid >= 0 && gid >= 0) {
                return new int[] {uid, gid};
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        try {
            Map<String, Object> ids = Files.readAttributes(Path.of("/proc/self"), "unix:uid,gid");
            return new int[] {(Integer) ids.get("uid"), (Integer) ids.get("gid")};
        } catch (IOException | RuntimeException e) {
            return new int[] {-1, -1};
        }
    }

    /** The uid the sandbox's processes have on the host. */
    int uid() {
        return uid;
    }

    /** The gid the sandbox's processes have on the host. */
    int gid() {
        return gid;
    }

    /** Whether the JVM is root and its sandbox a different, unprivileged user. */
    boolean dropsRoot() {
        return jvmIsRoot;
    }

    /** Why no sandbox can start: a root JVM without {@code setpriv}; empty when it can. */
    Optional<String> refusal() {
        return jvmIsRoot && setpriv.isEmpty()
                ? Optional.of("The sandbox cannot start: this JVM runs as root, and its sandbox must then run as uid " + NOBODY
                        + " on the host, which needs setpriv, and setpriv is not installed; install it (" + INSTALL
                        + ") or run Engram as an unprivileged user.")
                : Optional.empty();
    }

    /**
     * What starts {@code bwrap} as this user: {@code setpriv --reuid=65534 --regid=65534 --clear-groups --} for a root
     * JVM, nothing otherwise.
     *
     * @throws IllegalStateException with {@link #refusal()} when no sandbox can start
     */
    List<String> launcher() {
        if (!jvmIsRoot) {
            return List.of();
        }
        Path tool = setpriv.orElseThrow(() -> new IllegalStateException(refusal().orElseThrow()));
        return List.of(tool.toString(), "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--");
    }

    /**
     * A new temporary file next to {@code target}, for the file tools to write and then move onto it. For a root JVM
     * it is what {@code target} was: its mode (as the umask lets it) and then its owner and group; or, when
     * {@code target} is new, mode {@code 0644} and owned like the directory it goes in. So a writable directory handed
     * to the sandbox's user stays that user's whatever the file tools write in it. For a JVM that is not root (which
     * cannot give files away), a temporary file of its own ({@code 0600}), as before.
     */
    Path temporaryFileFor(Path target) throws IOException {
        if (!jvmIsRoot) {
            return Files.createTempFile(target.getParent(), ".engram-", ".tmp");
        }
        boolean replaces = Files.exists(target);
        Map<String, Object> like = Files.readAttributes(replaces ? target : target.getParent(), "unix:mode,uid,gid");
        int mode = replaces ? (Integer) like.get("mode") & 0777 : 0644;
        // The mode is given at creation and the owner without following links: the directory may be the sandbox's, which
        // could put a link where the file was between two calls.
        Path tmp = Files.createTempFile(target.getParent(), ".engram-", ".tmp",
                PosixFilePermissions.asFileAttribute(permissions(mode)));
        giveAway(tmp, like);
        return tmp;
    }

    /**
     * {@link Files#createDirectories}, where each directory a root JVM creates is owned like its parent (and mode
     * {@code 0755}, as the umask lets it), so that a new directory in the sandbox's writable directory is the sandbox's.
     */
    void createDirectories(Path dir) throws IOException {
        if (!jvmIsRoot || Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            return;
        }
        List<Path> missing = new ArrayList<>();
        Path p = dir;
        while (p != null && !Files.exists(p, NOFOLLOW_LINKS)) {
            missing.add(0, p);
            p = p.getParent();
        }
        for (Path created : missing) {
            Files.createDirectory(created, PosixFilePermissions.asFileAttribute(permissions(0755)));
            giveAway(created, Files.readAttributes(created.getParent(), "unix:uid,gid"));
        }
    }

    private static void giveAway(Path path, Map<String, Object> like) throws IOException {
        Files.setAttribute(path, "unix:gid", like.get("gid"), NOFOLLOW_LINKS);
        Files.setAttribute(path, "unix:uid", like.get("uid"), NOFOLLOW_LINKS);
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_READ};
        for (int bit = 0; bit < order.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                out.add(order[bit]);
            }
        }
        return out;
    }

    /**
     * Refuses, before anything starts, a workspace this user could not use: the root and every directory above it
     * must be searchable ({@code x}) and the root readable ({@code r}); each writable root writable ({@code rwx}) and
     * the directories between it and the root searchable; {@code cwd} reachable. Judged on the mode bits of the
     * owner, group or others class the user falls in (POSIX ACLs aside). A JVM that is not root runs its sandbox as
     * itself, so nothing is checked then.
     *
     * @throws ToolException naming the directory, its mode and owner, and the command that fixes it
     */
    void checkAccess(Workspace workspace, Path cwd) {
        if (!jvmIsRoot) {
            return;
        }
        Path root = workspace.root();
        List<Path> above = new ArrayList<>();
        for (Path p = root.getParent(); p != null; p = p.getParent()) {
            above.add(0, p);
        }
        for (Path dir : above) {
            require(dir, "x", "reach the workspace " + root + " through " + dir, "chmod o+x " + dir);
        }
        require(root, "rx", "read the workspace " + root, "chmod o+rx " + root);
        for (Path writable : workspace.writableRoots()) {
            between(root, writable, "reach the writable directory " + writable);
            require(writable, "rwx", "write the writable directory " + writable, "chown -R " + uid + ":" + gid + " " + writable
                    + " (files the sandbox writes belong to uid " + uid + " on the host)");
        }
        between(root, cwd, "reach the working directory " + cwd);
        require(cwd, "x", "enter the working directory " + cwd, "chmod o+x " + cwd);
    }

    private void between(Path root, Path inner, String what) {
        if (!inner.startsWith(root)) {
            return;
        }
        Path dir = root;
        for (Path part : root.relativize(inner)) {
            if (part.toString().isEmpty() || dir.resolve(part).equals(inner)) {
                break;
            }
            dir = dir.resolve(part);
            require(dir, "x", what + " through " + dir, "chmod o+x " + dir);
        }
    }

    private void require(Path dir, String access, String what, String fix) {
        Map<String, Object> attributes;
        try {
            attributes = Files.readAttributes(dir, "unix:mode,uid,gid");
        } catch (NoSuchFileException e) {
            throw new ToolException("The sandbox cannot " + what + ": " + dir + " does not exist; the operator can create it. "
                    + "Nothing was run.");
        } catch (IOException | UnsupportedOperationException e) {
            throw new ToolException("The sandbox cannot " + what + ": " + dir + " cannot be read (" + e.getMessage() + "). "
                    + "Nothing was run.");
        }
        int mode = (Integer) attributes.get("mode");
        int owner = (Integer) attributes.get("uid");
        int group = (Integer) attributes.get("gid");
        int shift = owner == uid ? 6 : group == gid ? 3 : 0;
        int bits = (mode >> shift) & 7;
        int needed = (access.contains("r") ? 4 : 0) | (access.contains("w") ? 2 : 0) | (access.contains("x") ? 1 : 0);
        if ((bits & needed) != needed) {
            throw new ToolException("The sandbox runs as uid " + uid + " (this JVM is root) and cannot " + what + " (mode "
                    + String.format("%04o", mode & 07777) + ", owner " + owner + ":" + group + "); the operator can run: " + fix
                    + ". Nothing was run.");
        }
    }
}

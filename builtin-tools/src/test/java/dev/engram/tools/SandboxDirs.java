package dev.engram.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;

/**
 * Test setup for a root JVM, whose sandbox runs as uid 65534 on the host: JUnit's temporary directories are root's
 * alone ({@code 0700}), so a test workspace in one is opened to others along its path and its writable directories
 * handed to the sandbox's user, as an operator would ({@code chmod o+rx}, {@code chown -R 65534:65534}). Nothing
 * changes for a JVM that is not root: its sandbox is itself.
 */
final class SandboxDirs {
    private SandboxDirs() {
    }

    /**
     * Makes {@code tempDir} and every directory from it down to {@code root} readable and searchable by others, and
     * gives each of {@code writable} (with everything in it) to the sandbox's user.
     */
    static void share(Path tempDir, Path root, Path... writable) {
        SandboxUser user = SandboxUser.forThisJvm();
        if (!user.dropsRoot()) {
            return;
        }
        try {
            Path dir = tempDir;
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            for (Path part : tempDir.relativize(root)) {
                if (part.toString().isEmpty()) {
                    break;
                }
                dir = dir.resolve(part);
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            for (Path w : writable) {
                try (Stream<Path> paths = Files.walk(w)) {
                    for (Path p : paths.toList()) {
                        Files.setAttribute(p, "unix:uid", user.uid());
                        Files.setAttribute(p, "unix:gid", user.gid());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

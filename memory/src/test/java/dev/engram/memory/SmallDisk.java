package dev.engram.memory;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted on a directory, to fill a disk in a test; needs root (CI runs as root). Shipped in the
 * engram-memory test-jar. {@link #close()} unmounts it.
 */
public final class SmallDisk implements AutoCloseable {
    private final Path dir;

    private SmallDisk(Path dir) {
        this.dir = dir;
    }

    /** Mounts a tmpfs of {@code megabytes} on {@code dir} (created if missing); skips the test when that is not possible. */
    public static SmallDisk mount(Path dir, int megabytes) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "skipped: mounting a small tmpfs needs root");
        Files.createDirectories(dir);
        String failure = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", dir.toString()));
        assumeTrue(failure.isEmpty(), "skipped: cannot mount a tmpfs (mount from util-linux, and the right to mount): " + failure);
        return new SmallDisk(dir);
    }

    public Path dir() {
        return dir;
    }

    /** Grows (or shrinks) the file system to {@code megabytes}, keeping its files. */
    public void resize(int megabytes) throws Exception {
        String failure = run(List.of("mount", "-o", "remount,size=" + megabytes + "m", dir.toString()));
        if (!failure.isEmpty()) {
            throw new IllegalStateException("cannot resize the tmpfs at " + dir + ": " + failure);
        }
    }

    /**
     * Fills the disk with a file {@code name} but for about {@code leaveBytes}, and returns it (delete it to free
     * the space).
     */
    public Path fill(String name, long leaveBytes) throws IOException {
        Path filler = dir.resolve(name);
        byte[] chunk = new byte[4096];
        try (var out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(chunk);
                out.flush();
            }
        } catch (IOException full) {
            // "No space left on device": the disk is full
        }
        try (var channel = java.nio.channels.FileChannel.open(filler, java.nio.file.StandardOpenOption.WRITE)) {
            channel.truncate(Math.max(0, channel.size() - leaveBytes));
        }
        return filler;
    }

    @Override
    public void close() throws Exception {
        String failure = run(List.of("umount", dir.toString()));
        if (!failure.isEmpty()) {
            run(List.of("umount", "-l", dir.toString()));
        }
    }

    /** Runs a command; the empty string when it succeeded, else what it said. */
    private static String run(List<String> command) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.getMessage();
        }
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return String.join(" ", command) + " did not finish";
        }
        return p.exitValue() == 0 ? "" : String.join(" ", command) + " failed: " + output.strip();
    }
}

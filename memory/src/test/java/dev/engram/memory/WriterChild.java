package dev.engram.memory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM that writes until it is killed, as the durability tests start it, and that can never outlive its test.
 *
 * <p>Two guards. The parent closes the child in a {@code try}-with-resources, so a failed assertion still kills it
 * ({@link #close()}). And the child itself, by calling {@link #exitWhenParentDies()} first thing in its
 * {@code main}, halts when its standard input reaches end of file: the parent keeps that pipe open and never writes
 * to it, so EOF means the parent JVM is gone (it crashed, was killed, or exited without closing the child).
 * Without both, a child whose parent test failed would go on writing a database in {@code /tmp} for ever.
 */
public final class WriterChild implements AutoCloseable {
    private final Process process;

    private WriterChild(Process process) {
        this.process = process;
    }

    /**
     * Starts {@code main} in a new JVM on this JVM's class path, with {@code jvmFlags} before the class name and
     * {@code args} after it; its standard error is discarded, its standard input stays an open pipe.
     */
    public static WriterChild start(Class<?> main, List<String> jvmFlags, String... args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmFlags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        try {
            return new WriterChild(new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** The running child. */
    public Process process() {
        return process;
    }

    /** Kills the child with SIGKILL and waits for it to be gone; a no-op when it has already ended. */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("child " + process.pid() + " still alive 30 s after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Called by a child first thing: a daemon thread reads standard input and halts this JVM at its end of file, which
     * comes when the parent closes the pipe or dies.
     */
    public static void exitWhenParentDies() {
        Thread watcher = new Thread(() -> {
            try (InputStream in = System.in) {
                while (in.read() != -1) {
                    // the parent never writes; anything it did is ignored
                }
            } catch (IOException e) {
                // a broken pipe is a dead parent as well
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watch");
        watcher.setDaemon(true);
        watcher.start();
    }
}

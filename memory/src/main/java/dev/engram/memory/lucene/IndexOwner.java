package dev.engram.memory.lucene;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who holds an index directory: a file beside Lucene's {@code write.lock} with the holder's pid and
 * command line, so a second process that finds the index locked can say which process to stop.
 * Written when the index opens, deleted when it closes; a file left by a crash is simply overwritten.
 */
final class IndexOwner {
    private static final Logger LOG = LoggerFactory.getLogger(IndexOwner.class);
    static final String FILE = "engram.owner";

    private IndexOwner() {
    }

    /** Records this process as the holder of {@code directory}; returns the file written. */
    static Path write(Path directory) {
        Path file = directory.resolve(FILE);
        ProcessHandle self = ProcessHandle.current();
        String command = self.info().commandLine().orElse("java");
        try {
            Files.writeString(file, "pid " + self.pid() + ": "
                    + (command.length() > 300 ? command.substring(0, 300) + "..." : command));
        } catch (IOException e) {
            LOG.debug("Cannot write {}", file, e);
        }
        return file;
    }

    /** The holder recorded in {@code directory}, if any. */
    static Optional<String> read(Path directory) {
        try {
            return Optional.of(Files.readString(directory.resolve(FILE)).strip()).filter(s -> !s.isEmpty());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}

package dev.engram.cli;

import dev.engram.memory.FileStatus;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.tools.DocumentFormat;
import dev.engram.tools.FileUpload;
import dev.engram.tools.FolderUploads;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Files uploaded from the command line into a folder, one after another through {@link FolderUploads}, with a progress
 * bar on standard error that moves as each file's passages are stored and indexed. Shared by {@code engram folder upload}
 * and {@code engram ingest}.
 */
final class FolderUploadRun {
    /** What an upload did. */
    record Summary(int files, int failed, int skipped, long chunks, long characters, long bytes, double seconds) {
    }

    private FolderUploadRun() {
    }

    /**
     * The files {@code paths} name: files as given (each must be of an accepted format), directories walked for files
     * of accepted formats; {@code others} counts the files a walk passed over.
     *
     * @throws IllegalArgumentException naming a path that does not exist or a file of another format
     */
    static List<Path> files(List<Path> paths, int[] others) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path p : paths) {
            if (!Files.exists(p)) {
                throw new IllegalArgumentException("No such file or directory: " + p);
            }
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
                        if (DocumentFormat.of(f.getFileName().toString()).isPresent()) {
                            files.add(f);
                        } else {
                            others[0]++;
                        }
                    }
                }
            } else {
                DocumentFormat.require(p.getFileName().toString());
                files.add(p);
            }
        }
        return files;
    }

    /** Uploads {@code files} into the user's folder and waits for each; failures are reported on {@code err}. */
    static Summary upload(FolderUploads uploads, String user, Folder folder, List<Path> files, FolderUploads.Duplicates duplicates,
            PrintWriter err) throws IOException {
        long start = System.nanoTime();
        long total = 0;
        for (Path f : files) {
            total += Files.size(f);
        }
        ProgressBar bar = new ProgressBar(err, "upload");
        long done = 0;
        int failed = 0;
        int skipped = 0;
        long chunks = 0;
        long characters = 0;
        for (Path f : files) {
            byte[] content = Files.readAllBytes(f);
            FileUpload upload = uploads.upload(user, folder.id(), f.getFileName().toString(), content, duplicates);
            if (upload.skipped()) {
                skipped++;
            } else {
                while (!upload.done().isDone()) {
                    FolderFile now = uploads.file(user, upload.file().id());
                    long part = now.totalChunks() == 0 ? 0 : content.length * (long) now.chunksEmbedded() / now.totalChunks();
                    bar.update(done + part, total);
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while uploading " + f, e);
                    }
                }
                FolderFile end = upload.done().join();
                if (end.status() == FileStatus.ERROR) {
                    failed++;
                    err.println();
                    err.println("engram: " + f + " failed: " + end.error());
                } else {
                    chunks += end.totalChunks();
                    characters += end.text().length();
                }
            }
            done += content.length;
            bar.update(done, total);
        }
        bar.done();
        return new Summary(files.size(), failed, skipped, chunks, characters, total, (System.nanoTime() - start) / 1e9);
    }
}

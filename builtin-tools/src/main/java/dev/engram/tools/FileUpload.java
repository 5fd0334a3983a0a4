package dev.engram.tools;

import dev.engram.memory.FolderFile;
import dev.engram.memory.Job;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An upload {@link FolderUploads} accepted: the file as recorded when it was accepted, the job that processes it, and
 * the file as it ends (completed, or with the error that stopped it).
 *
 * @param file the file when accepted ({@code pending}); for a skipped duplicate, the file that was already there
 * @param job  the job processing it; empty when the upload was skipped as a duplicate
 * @param done completes with the file when its processing ends
 */
public record FileUpload(FolderFile file, Optional<Job> job, CompletableFuture<FolderFile> done) {
    public FileUpload {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(done, "done");
    }

    /** Whether the upload was skipped because the folder already had a file of its name. */
    public boolean skipped() {
        return job.isEmpty();
    }

    /**
     * Waits for the processing to end and returns the file as it ended.
     *
     * @throws IllegalStateException if it has not ended within {@code timeout}, or the wait was interrupted
     */
    public FolderFile await(Duration timeout) {
        try {
            return done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("file '" + file.name() + "' is still being processed after " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for file '" + file.name() + "'", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("processing file '" + file.name() + "' failed: " + e.getCause(), e.getCause());
        }
    }
}

package dev.engram.tools;

import dev.engram.memory.AgentFolders;
import dev.engram.memory.FileLimits;
import dev.engram.memory.FileStatus;
import dev.engram.memory.FolderFile;
import dev.engram.memory.FolderStore;
import dev.engram.memory.Job;
import dev.engram.memory.JobLeases;
import dev.engram.memory.JobStatus;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NotFoundException;
import dev.engram.memory.Scope;
import dev.engram.memory.TextChunker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Files uploaded to a user's folder, processed in the background: {@link #upload} checks the format, records the file
 * ({@code pending}) and a job ({@link #KIND}) and returns at once; then, one file after another on the uploads' own
 * thread, the file is parsed ({@link Documents}), its text stored and chunked ({@link TextChunker}) and the file opened
 * in the prompt of each agent its folder is attached to (as Letta does), and its passages
 * stored, embedded and indexed batch by batch, the file's status and counts and the job's result following each step.
 * A file whose processing fails ends with status {@code error} and the reason, its job failed with the same.
 *
 * <p>Crash recovery: a job a stop interrupted after the file's text was stored resumes from the passages stored
 * ({@link #resumeUnfinished()}); one interrupted earlier, whose upload was held in memory only, fails, asking for the
 * upload again. Where several processes share one store (servers on one PostgreSQL database), each keeps the uploads it
 * runs alive in the store ({@link JobLeases}), and {@link #resumeAbandoned()} takes up only those whose owner is gone.
 */
public final class FolderUploads implements AutoCloseable {
    /** The {@link Job#kind()} of an upload's job. */
    public static final String KIND = "file_upload";
    /** Passages stored and indexed per step: the file's and job's progress move by this much. */
    static final int BATCH = 64;
    private static final Logger LOG = LoggerFactory.getLogger(FolderUploads.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** What an upload does when the folder already has a file of its original name (Letta's {@code duplicate_handling}). */
    public enum Duplicates {
        /** Keep both: the new file's name gets a {@code _(n)} suffix (the default). */
        SUFFIX,
        /** Refuse the upload. */
        ERROR,
        /** Keep the file that is there and store nothing. */
        SKIP,
        /** Delete the file that is there, with its passages, and store the new one. */
        REPLACE;

        /**
         * The handling Letta names so ({@code suffix}, {@code error}, {@code skip}, {@code replace}).
         *
         * @throws IllegalArgumentException naming the four, for any other name
         */
        public static Duplicates of(String name) {
            for (Duplicates d : values()) {
                if (d.name().toLowerCase(Locale.ROOT).equals(name)) {
                    return d;
                }
            }
            throw new IllegalArgumentException("duplicate_handling is one of suffix, error, skip or replace, not '" + name + "'");
        }
    }

    private record Accepted(FolderFile file, Job job) {
    }

    private final MemoryStore store;
    private final MemorySearch search;
    private final int chunkChars;
    private final ExecutorService worker;
    private final JobLeases leases;
    private final Function<Scope, FileLimits> limits;

    private FolderUploads(MemoryStore store, MemorySearch search, int chunkChars, Function<Scope, FileLimits> limits) {
        this.store = Objects.requireNonNull(store, "store must not be null");
        this.search = Objects.requireNonNull(search, "search must not be null");
        if (chunkChars < TextChunker.MIN_CHARS || chunkChars > TextChunker.MAX_CHARS) {
            throw new IllegalArgumentException("the chunk size must be between " + TextChunker.MIN_CHARS + " and "
                    + TextChunker.MAX_CHARS + " characters, got " + chunkChars);
        }
        this.chunkChars = chunkChars;
        this.limits = Objects.requireNonNull(limits, "limits must not be null");
        this.worker = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("engram-folder-upload").factory());
        this.leases = JobLeases.on(store);
    }

    /**
     * Uploads into {@code store}'s folders, indexed by {@code search}, in chunks of {@link TextChunker#DEFAULT_CHARS}; each
     * agent the folder is attached to opens the new file under Letta's default limits for an agent of unknown context
     * window ({@link FileLimits#forContextWindow} of 0).
     */
    public static FolderUploads create(MemoryStore store, MemorySearch search) {
        return create(store, search, TextChunker.DEFAULT_CHARS);
    }

    /**
     * Uploads in chunks of at most {@code chunkChars} characters.
     *
     * @throws IllegalArgumentException if {@code chunkChars} is outside {@link TextChunker#MIN_CHARS} to
     *                                  {@link TextChunker#MAX_CHARS}
     */
    public static FolderUploads create(MemoryStore store, MemorySearch search, int chunkChars) {
        return create(store, search, chunkChars, agent -> FileLimits.forContextWindow(0));
    }

    /**
     * Uploads in chunks of at most {@code chunkChars} characters; once a file's text is stored, each agent its folder is
     * attached to opens it, as Letta does, closing its least recently used open files past the limit {@code limits} gives
     * for that agent.
     *
     * @throws IllegalArgumentException if {@code chunkChars} is outside {@link TextChunker#MIN_CHARS} to
     *                                  {@link TextChunker#MAX_CHARS}
     */
    public static FolderUploads create(MemoryStore store, MemorySearch search, int chunkChars,
            Function<Scope, FileLimits> limits) {
        return new FolderUploads(store, search, chunkChars, limits);
    }

    /**
     * Accepts a file for the user's folder and returns at once; its processing runs in the background. The file's name
     * in the folder is Letta's: {@code <folder>/<name>}, with {@code _(n)} before the extension for the n-th upload of a
     * name already there ({@link Duplicates#SUFFIX}).
     *
     * @throws IllegalArgumentException if the file's format is not accepted (naming those that are); nothing is stored
     * @throws NotFoundException        if the user has no such folder
     * @throws dev.engram.memory.DuplicateException if the folder has a file of that name and {@code duplicates} is
     *                                  {@link Duplicates#ERROR}
     */
    public FileUpload upload(String userId, String folderId, String fileName, byte[] content, Duplicates duplicates) {
        Objects.requireNonNull(content, "content must not be null");
        Objects.requireNonNull(duplicates, "duplicates must not be null");
        String original = baseName(fileName);
        DocumentFormat format = DocumentFormat.require(original);
        FolderStore folders = store.folders();
        var folder = folders.get(userId, folderId).orElseThrow(() -> new NotFoundException("Folder '" + folderId + "' not found."));
        List<FolderFile> existing = folders.files(userId, folderId);
        List<FolderFile> same = existing.stream().filter(f -> f.originalName().equals(original)).toList();
        String name = folder.name() + "/" + original;
        if (!same.isEmpty()) {
            switch (duplicates) {
                case ERROR -> throw new dev.engram.memory.DuplicateException("File '" + original + "' already exists in folder '"
                        + folder.name() + "': upload it with duplicate_handling suffix or replace, or delete it first.");
                case SKIP -> {
                    return new FileUpload(same.getFirst(), Optional.empty(), CompletableFuture.completedFuture(same.getFirst()));
                }
                case REPLACE -> same.forEach(f -> folders.deleteFile(userId, f.id()));
                case SUFFIX -> name = freeName(existing, folder.name(), original, same.size());
            }
        }
        String chosen = name;
        Accepted accepted = store.inTransaction(tx -> {
            FolderFile file = folders.addFile(userId, folderId, chosen, original, format.mediaType(original), content.length);
            ObjectNode input = JSON.createObjectNode().put("file_id", file.id()).put("folder_id", folderId)
                    .put("chunk_chars", chunkChars);
            return new Accepted(file, store.jobs().create(userId, KIND, input.toString()));
        });
        FolderFile file = accepted.file();
        Job job = accepted.job();
        return new FileUpload(file, Optional.of(job), submit(job, content));
    }

    /**
     * The user's file as it stands now (its status and counts move while it is processed).
     *
     * @throws NotFoundException if the user has no such file (it was deleted)
     */
    public FolderFile file(String userId, String fileId) {
        return store.folders().file(userId, fileId).orElseThrow(() -> new NotFoundException("File '" + fileId + "' not found."));
    }

    /**
     * Takes up the uploads a stop interrupted: each whose text was stored resumes from its stored passages; the others
     * (their upload was in memory only) fail, asking for the upload again, as does one started twice already. Call it
     * once at a start, from the one process that runs this store's jobs (uploads this instance runs are left to it);
     * where other processes share the store, call {@link #resumeAbandoned()} instead.
     *
     * @return the uploads resumed, each completing when its file ends
     */
    public List<CompletableFuture<FolderFile>> resumeUnfinished() {
        return resume(job -> !leases.holds(job.id()));
    }

    /**
     * Takes up the uploads whose owner is gone, where other processes may run uploads on the same store: those active
     * but unchanged for longer than {@link JobLeases#LEASE} (an instance touches the uploads it runs every
     * {@link JobLeases#HEARTBEAT}), and not run here. An upload some live process runs is left to it.
     *
     * @return the uploads resumed, each completing when its file ends
     */
    public List<CompletableFuture<FolderFile>> resumeAbandoned() {
        return resume(leases::abandoned);
    }

    /**
     * Calls {@link #resumeAbandoned()} every {@code period} from now until {@link #close}: for a server sharing its store
     * with others, so that an upload whose server stopped is taken up without a restart.
     *
     * @throws IllegalArgumentException if the period is not positive
     */
    public void resumeAbandonedEvery(Duration period) {
        Objects.requireNonNull(period, "period must not be null");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("the period must be positive, got " + period);
        }
        leases.every(period, this::resumeAbandoned);
    }

    private List<CompletableFuture<FolderFile>> resume(Predicate<Job> take) {
        List<Job> unfinished;
        try {
            unfinished = store.jobs().unfinished();
        } catch (UnsupportedOperationException e) {
            return List.of();
        }
        List<CompletableFuture<FolderFile>> resumed = new ArrayList<>();
        for (Job job : unfinished) {
            if (!job.kind().equals(KIND) || !take.test(job)) {
                continue;
            }
            String fileId = JSON.readTree(job.input()).path("file_id").asString("");
            Optional<FolderFile> file = store.folders().file(job.userId(), fileId);
            if (file.isPresent() && file.get().status() == FileStatus.EMBEDDING && job.attempts() < 2) {
                resumed.add(submit(job, null));
            } else {
                String why = "the server stopped while file '" + file.map(FolderFile::originalName).orElse(fileId)
                        + "' was processed; upload it again";
                file.filter(f -> !f.status().isTerminal()).ifPresent(f -> store.folders().fail(job.userId(), f.id(), why));
                store.jobs().finish(job.userId(), job.id(), JobStatus.FAILED, job.result(), why);
            }
        }
        return List.copyOf(resumed);
    }

    private CompletableFuture<FolderFile> submit(Job job, byte[] content) {
        CompletableFuture<FolderFile> done = new CompletableFuture<>();
        leases.hold(job);
        try {
            worker.execute(() -> {
                try {
                    done.complete(run(job, content));
                } catch (RuntimeException | Error e) {
                    done.completeExceptionally(e);
                } finally {
                    leases.release(job.id());
                }
            });
        } catch (RejectedExecutionException e) {
            leases.release(job.id());
            throw new IllegalStateException("the folder uploads are closed; job " + job.id() + " was not started", e);
        }
        return done;
    }

    /** Processes one file; never throws for a file that fails: the file and its job say why. */
    private FolderFile run(Job job, byte[] content) {
        String user = job.userId();
        String fileId = JSON.readTree(job.input()).path("file_id").asString();
        int size = JSON.readTree(job.input()).path("chunk_chars").asInt(chunkChars);
        FolderStore folders = store.folders();
        try {
            store.jobs().start(user, job.id());
            FolderFile file = folders.file(user, fileId).orElseThrow(() -> new NotFoundException("the file was deleted"));
            int pages = 1;
            if (content != null) {
                file = folders.status(user, fileId, FileStatus.PARSING);
                progress(job, file, pages);
                ParsedDocument parsed = Documents.parse(file.originalName(), content);
                pages = parsed.pages();
                List<String> chunks = chunks(parsed.text(), size);
                if (chunks.isEmpty()) {
                    throw new IllegalArgumentException("'" + file.originalName() + "' holds no text"
                            + (parsed.format() == DocumentFormat.PDF ? " (a scanned PDF has no text layer)" : ""));
                }
                file = folders.text(user, fileId, parsed.text(), chunks.size());
                openInAgents(file);
            }
            List<String> chunks = chunks(file.text(), size);
            int stored = folders.passageCount(user, fileId);
            progress(job, file, pages);
            for (int from = stored; from < chunks.size(); from += BATCH) {
                List<String> batch = chunks.subList(from, Math.min(chunks.size(), from + BATCH));
                folders.addPassages(user, fileId, batch);
                search.awaitIndexed();
                file = folders.embedded(user, fileId, from + batch.size());
                progress(job, file, pages);
            }
            file = folders.status(user, fileId, FileStatus.COMPLETED);
            store.jobs().finish(user, job.id(), JobStatus.COMPLETED, result(file, pages).toString(), "");
            return file;
        } catch (RuntimeException e) {
            String why = e instanceof NotFoundException ? "the file or its folder was deleted while it was processed"
                    : e.getMessage() == null ? e.toString() : e.getMessage();
            if (!(e instanceof IllegalArgumentException || e instanceof NotFoundException
                    || e instanceof dev.engram.memory.QuotaExceededException)) {
                LOG.warn("Processing file {} of user {} failed", fileId, user, e);
            }
            Optional<FolderFile> failed = Optional.empty();
            try {
                failed = folders.file(user, fileId).map(f -> folders.fail(user, fileId, why));
                store.jobs().finish(user, job.id(), JobStatus.FAILED, failed.map(f -> result(f, 1).toString()).orElse("{}"),
                        why);
            } catch (RuntimeException again) {
                LOG.warn("Recording the failure of file {} of user {} failed too", fileId, user, again);
            }
            return failed.orElseGet(() -> folders.file(user, fileId).orElse(null));
        }
    }

    /** Opens the file in the prompt of every agent its folder is attached to, as Letta inserts an upload into them. */
    private void openInAgents(FolderFile file) {
        AgentFolders agents = store.folders().agents();
        for (String agentId : agents.agents(file.userId(), file.folderId())) {
            Scope agent = Scope.of(file.userId(), agentId);
            try {
                List<String> closed = agents.open(agent, file.id(), 0, 0, limits.apply(agent).maxFilesOpen());
                if (!closed.isEmpty()) {
                    LOG.debug("Opening {} for agent {} closed {}", file.name(), agentId, closed);
                }
            } catch (NotFoundException detachedMeanwhile) {
                LOG.debug("Agent {} no longer has the folder of {}", agentId, file.name());
            }
        }
    }

    private static List<String> chunks(String text, int size) {
        return TextChunker.chunk(text, size).stream().filter(c -> !c.isBlank()).toList();
    }

    private void progress(Job job, FolderFile file, int pages) {
        store.jobs().progress(job.userId(), job.id(), result(file, pages).toString());
    }

    private static JsonNode result(FolderFile f, int pages) {
        return JSON.createObjectNode().put("file_id", f.id()).put("folder_id", f.folderId()).put("file_name", f.name())
                .put("processing_status", f.status().wire()).put("total_chunks", f.totalChunks())
                .put("chunks_embedded", f.chunksEmbedded()).put("pages", pages);
    }

    /** The name without any directory a client sent with it. */
    static String baseName(String fileName) {
        Objects.requireNonNull(fileName, "fileName must not be null");
        String n = fileName.replace('\\', '/');
        n = n.substring(n.lastIndexOf('/') + 1).strip();
        if (n.isEmpty() || n.equals(".") || n.equals("..")) {
            throw new IllegalArgumentException("the uploaded file needs a name with an extension, such as notes.md");
        }
        return n;
    }

    private static String freeName(List<FolderFile> existing, String folder, String original, int count) {
        int dot = original.lastIndexOf('.');
        String base = dot > 0 ? original.substring(0, dot) : original;
        String ext = dot > 0 ? original.substring(dot) : "";
        for (int n = count; ; n++) {
            String candidate = folder + "/" + base + "_(" + n + ")" + ext;
            if (existing.stream().noneMatch(f -> f.name().equals(candidate))) {
                return candidate;
            }
        }
    }

    /** Stops taking uploads; the one in progress ends first. */
    @Override
    public void close() {
        leases.close();
        worker.shutdown();
        try {
            if (!worker.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS)) {
                worker.shutdownNow();
            }
        } catch (InterruptedException e) {
            worker.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}

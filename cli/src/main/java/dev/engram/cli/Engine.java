package dev.engram.cli;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentNotFoundException;
import dev.engram.agents.AgentRuntime;
import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.SqliteOptions;
import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.sqlite.SqliteBackend;
import dev.engram.memory.sqlite.SqliteNativeLibrary;
import dev.engram.tools.PermissionBroker;
import dev.engram.tools.ShellSessions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The embedded defaults in an Engram home: {@code memory.db} (SQLite), {@code index/} (Lucene),
 * {@code native/} (the tokenizer's and sqlite-jdbc's extracted native libraries). Opened lazily, closed in reverse order.
 */
final class Engine implements AutoCloseable {
    private final Path home;
    private MemoryStore store;
    private Embedder embedder;
    private MemorySearch search;
    private AgentRuntime runtime;
    private final List<AutoCloseable> extra = new ArrayList<>();

    private dev.engram.tools.PythonTools pythonTools;
    private boolean unsandboxedHostShell;
    private boolean shellSessions;

    private final Optional<String> postgres;
    private final Map<String, String> environment;
    /** One lock per resource, so that the warm-up opening the search never holds up a command that needs only the store. */
    private final Object storeLock = new Object();
    private final Object embedderLock = new Object();
    private final Object searchLock = new Object();
    private volatile boolean closed;
    private Thread warmUp;
    private final CompletableFuture<Void> warmedUp = new CompletableFuture<>();
    /** Completed when the engine closes: a warm-up waiting for its command's checks stops waiting. */
    private final CompletableFuture<Void> closing = new CompletableFuture<>();
    /** Opens the embedding model of a home ({@link #defaultModel}; tests see through it whether a command asks for one). */
    private final Function<Path, Embedder> models;

    Engine(Path home) {
        this(home, Optional.empty(), Map.of(), Engine::defaultModel);
    }

    /** An engine over {@code home}, keeping memory in PostgreSQL at {@code postgres} when given, its model opened by {@code models}. */
    Engine(Path home, Optional<String> postgres, Map<String, String> environment, Function<Path, Embedder> models) {
        this.home = home;
        this.postgres = postgres;
        this.environment = environment;
        this.models = models;
    }

    /** The default embedding model, its native libraries cached in the home; a stand-in that fails every call when it cannot be opened. */
    static Embedder defaultModel(Path home) {
        return OnnxEmbedder.builder(EmbeddingModel.defaultModel()).nativeCacheDirectory(home.resolve("native"))
                .buildOrUnavailable();
    }

    /** Where memory is kept, in words for a log line. */
    String storeDescription() {
        return postgres.map(url -> "PostgreSQL " + url.replaceAll("password=[^&]*", "password=***"))
                .orElse("SQLite " + home.resolve("memory.db"));
    }

    Path home() {
        return home;
    }

    MemoryStore store() {
        synchronized (storeLock) {
            checkOpen();
            if (store == null) {
                createHome();
                store = MemoryStore.over(openBackend());
            }
            return store;
        }
    }

    /**
     * Starts opening the store on a thread of its own ({@code engram serve} builds its server meanwhile), unless it is
     * open already: {@link #store()} then returns at once, and each of its calls waits until the open has ended (and
     * throws its failure, the same exception an open on the caller's thread throws). The returned stage completes when
     * the open has ended, exceptionally with its failure. A home that cannot be created fails here, at once.
     */
    CompletableFuture<Void> openStoreInBackground() {
        synchronized (storeLock) {
            checkOpen();
            if (store != null) {
                return CompletableFuture.completedFuture(null);
            }
            createHome();
            OpeningBackend opening = OpeningBackend.start(storeDescription(), this::openBackend);
            store = MemoryStore.over(opening);
            return opening.opened();
        }
    }

    private void createHome() {
        try {
            Files.createDirectories(home);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the Engram home " + home + ": " + e.getMessage(), e);
        }
    }

    /** Opens the backend: PostgreSQL at the URL given, else the home's SQLite file (as {@code MemoryStore.sqlite}). */
    private MemoryBackend openBackend() {
        return postgres.<MemoryBackend>map(url -> dev.engram.memory.postgres.PostgresBackend.open(url,
                        environment.get("PGUSER"), environment.get("PGPASSWORD")))
                .orElseGet(() -> {
                    // sqlite-jdbc's native library from the home's cache, not copied out of the jar on each start
                    SqliteNativeLibrary.useCache(home.resolve("native").resolve("sqlite"));
                    return SqliteBackend.open(SqliteOptions.builder(home.resolve("memory.db")).build());
                });
    }

    /** The embedding model; a stand-in that fails every call when it cannot be opened, so that search degrades to BM25. */
    Embedder embedder() {
        synchronized (embedderLock) {
            checkOpen();
            if (embedder == null) {
                embedder = models.apply(home);
            }
            return embedder;
        }
    }

    MemorySearch search() {
        synchronized (searchLock) {
            checkOpen();
            if (search == null) {
                Embedder e = embedder();
                checkOpen(); // closed while the model loaded (a warm-up): open no index that no one will close
                // Over PostgreSQL each machine keeps its own index, derived from the database's change log.
                search = LuceneMemorySearch.builder(store(), e)
                        .directory(home.resolve(postgres.isPresent() ? "index-postgres" : "index")).build();
            }
            return search;
        }
    }

    /**
     * Opens the search (the index, caught up with the store, and the embedding model) on a background thread and runs
     * one query through it, so that the first search the user makes costs what later ones cost: loading the model and
     * its first inference take seconds, which a chat or a server spends waiting for the user anyway. A failure here
     * is left for that first search to report. Idempotent; the engine's close waits for it.
     */
    void warmUp() {
        warmUp(() -> { });
    }

    /**
     * {@link #warmUp()}, then {@code also} on the same thread (what else a command's first request would pay, such as
     * an agent model's token counter). Each step starts only while the engine is open, so that a close during the
     * warm-up waits for one step at most. The returned stage completes when the warm-up has ended, whether or not it
     * succeeded; a second call starts nothing and returns the first call's stage.
     */
    synchronized CompletableFuture<Void> warmUp(Runnable also) {
        return startWarmUp(READY, true, also);
    }

    /**
     * {@link #warmUp()} once {@code checked} completes normally (a command's checks against the store, which may still
     * refuse it at once: the model is then never asked for); meanwhile only the model's native libraries load.
     */
    synchronized CompletableFuture<Void> warmUpOnce(CompletionStage<?> checked) {
        return startWarmUp(checked, true, () -> { });
    }

    /**
     * Opens the search (the embedding model, then the index caught up with the store) on a background thread and runs
     * no query: a one-shot command such as {@code engram search} calls it first, so that loading the model overlaps
     * with its other work (opening the store, finding the agent), and its own search then finds the search open or
     * waits for it. A failure here is left for that search to report. The same thread as {@link #warmUp()}'s (a later
     * call of either starts nothing); the engine's close waits for it.
     */
    synchronized CompletableFuture<Void> openSearchInBackground() {
        return openSearchInBackground(READY);
    }

    /** {@link #openSearchInBackground()} once {@code checked} completes normally, as {@link #warmUpOnce} waits for it. */
    synchronized CompletableFuture<Void> openSearchInBackground(CompletionStage<?> checked) {
        return startWarmUp(checked, false, () -> { });
    }

    /** A command's checks that have passed already. */
    private static final CompletionStage<Void> READY = CompletableFuture.completedFuture(null);

    private synchronized CompletableFuture<Void> startWarmUp(CompletionStage<?> checked, boolean queries, Runnable also) {
        if (closed) {
            warmedUp.complete(null);
        }
        if (warmUp != null || closed) {
            return warmedUp;
        }
        warmUp = Thread.ofPlatform().daemon().name("engram-warm-up").start(() -> {
            try {
                awaitChecks(checked.toCompletableFuture());
                MemorySearch s = search();
                if (!queries) {
                    return;
                }
                Embedder e = embedder();
                // Inference at a few sequence lengths: the runtime plans each new input shape on its first run.
                for (String query : WARM_UP_QUERIES) {
                    checkOpen();
                    e.embedQuery(query);
                }
                checkOpen();
                s.search(SearchRequest.builder(WARM_UP_SCOPE, WARM_UP_QUERIES.getFirst()).build());
                checkOpen();
                also.run();
            } catch (RuntimeException e) {
                // The first real search opens what failed here, and reports it there; a close stops the warm-up here.
            } finally {
                warmedUp.complete(null);
            }
        });
        return warmedUp;
    }

    /**
     * Returns once the command's checks have passed, having prepared meanwhile what the model needs that no model
     * changes; throws (ending the warm-up before the model is asked for) when they failed or the engine closed first.
     */
    private void awaitChecks(CompletableFuture<?> checked) {
        if (checked.isDone()) {
            checked.join();
            return;
        }
        try {
            OnnxEmbedder.prepare(home.resolve("native"));
        } catch (RuntimeException | LinkageError e) {
            // the model's own build meets it again, and the search reports it there
        }
        CompletableFuture.anyOf(checked, closing).join();
        checkOpen();
        checked.join();
    }

    /** A scope no one has: the warm-up's query finds nothing and reads no one's memory. */
    private static final Scope WARM_UP_SCOPE = Scope.of("engram-warm-up", "engram-warm-up");

    /** Queries of a few lengths (in tokens: about 5, 15 and 40), the lengths of users' queries. */
    private static final List<String> WARM_UP_QUERIES = List.of("warm up the search",
            "what did Maya say about the field report and the octopus migration study",
            "a longer question, as an agent asks when it searches its archival memory for what the user said about a "
                    + "project, its deadlines, the people involved and the places they travelled to last spring");

    /** Waits for the warm-up (if any) to finish. */
    void awaitWarmUp() throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = warmUp;
        }
        if (t != null) {
            t.join();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the Engram home " + home + " was closed");
        }
    }

    /**
     * The runtime; {@code config} may register models, an approval handler, tools. Every agent lifecycle
     * operation goes through it (its checks, such as "agent is busy", apply); the search index and the
     * embedding model open only when something searches.
     */
    /** Imported Python tools run with this runner ({@code --python-tools}). */
    void enablePythonTools(dev.engram.tools.PythonTools runner) {
        this.pythonTools = runner;
    }

    /**
     * Shells keep a persistent sandboxed session per agent and session ({@code --shell-session}); each runtime gets
     * {@link ShellSessions} of its own, which it closes.
     */
    void useShellSessions() {
        this.shellSessions = true;
    }

    /** Shells run unsandboxed on the host where bubblewrap is missing ({@code --unsafe-host-shell}). */
    void allowUnsandboxedHostShell() {
        this.unsandboxedHostShell = true;
    }

    AgentRuntime runtime(Consumer<AgentRuntime.Builder> config) {
        if (runtime == null) {
            AgentRuntime.Builder b = AgentRuntime.builder(store(), new LazySearch(this::search));
            configure(b);
            config.accept(b);
            runtime = b.build();
        }
        return runtime;
    }

    AgentRuntime runtime() {
        return runtime(b -> { });
    }

    /**
     * What every runtime of the command line has: writes to partner and human blocks need someone's consent,
     * and by default no one is asked, so they are refused (chat asks at the terminal, 'tools call --consent'
     * is the caller's own); imported Python tools run when enabled; shells fall back to the unsandboxed host only
     * when chosen.
     */
    void configure(AgentRuntime.Builder b) {
        b.permissionBroker(PermissionBroker.denyAll());
        if (pythonTools != null) {
            b.pythonTools(pythonTools);
        }
        if (unsandboxedHostShell) {
            b.unsandboxedHostShell();
        }
        if (shellSessions) {
            b.shellSessions(ShellSessions.create());
        }
    }

    boolean onPostgres() {
        return postgres.isPresent();
    }

    /** The user's one agent of that name, else the one of that id (several of that name: an error listing their ids). */
    Agent agent(String userId, String nameOrId) {
        return runtime().agent(userId, BaseCommand.scope(this, userId, nameOrId).agentId());
    }

    void closeLater(AutoCloseable resource) {
        extra.add(resource);
    }

    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = warmUp;
        }
        closing.complete(null);
        if (t != null) {
            try {
                t.join(); // it may be opening the index: let it finish, so that what it opened is closed below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (int i = extra.size() - 1; i >= 0; i--) {
            try {
                extra.get(i).close();
            } catch (Exception ignored) {
                // closing on the way out: nothing more to do
            }
        }
        if (runtime != null) {
            runtime.close();
        }
        if (search != null) {
            search.close();
        }
        if (embedder != null) {
            embedder.close();
        }
        if (store != null) {
            store.close();
        }
        runtime = null;
        search = null;
        embedder = null;
        store = null;
    }
}

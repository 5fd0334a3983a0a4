package dev.engram.cli;

import dev.engram.framework.ModelPolicy;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.postgres.PostgresLocks;
import dev.engram.server.EngramServer;
import dev.engram.server.TurnLock;
import dev.engram.tools.SearchProviders;
import dev.engram.tools.ShellOptions;
import dev.engram.tools.WebFetcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code engram serve}: the Letta-compatible server over this store. On SIGTERM (or Ctrl-C) it stops taking
 * requests, cancels the turns in progress (what they stored stays consistent) and closes the store.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Run the server: Letta's V1 REST API (the official Letta clients work against it) over this store.",
                "Every request needs a key: create one with 'engram keys create --user USER'.",
                "Several servers can share one database: run each with the same --postgres URL."})
final class ServeCommand extends BaseCommand {
    @Option(names = "--port", defaultValue = "8283", description = "The port (default ${DEFAULT-VALUE}, Letta's).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = "The address to listen on (default ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
    String host;

    @Option(names = "--model", defaultValue = "openai:gpt-4o-mini", paramLabel = "SPEC",
            description = "The model of agents created without one (default ${DEFAULT-VALUE}).")
    String model;

    @Option(names = "--allow-model", paramLabel = "PATTERN", arity = "1..*",
            description = {"Also let API users and imported agent files use these model endpoints or scripts (globs, e.g. "
                    + "http://127.0.0.1:8080/* or script:/srv/scripts/*). Provider models (openai:MODEL, ...) and --model "
                    + "are always allowed; anything else is refused."})
    List<String> allowModels = new ArrayList<>();

    @Option(names = "--max-turns", defaultValue = "64", paramLabel = "N",
            description = "With --postgres: the most agents running a turn at once on this server (each holds a database "
                    + "lock on a connection of its own; default ${DEFAULT-VALUE}).")
    int maxTurns;

    @Option(names = "--web", description = "Let API users give agents web_fetch (Letta's fetch_webpage), and web_search "
            + "when BRAVE_API_KEY, TAVILY_API_KEY or SEARXNG_URL is set; off by default.")
    boolean web;

    @Mixin
    LimitOptions limits;

    @Override
    int run() throws InterruptedException {
        long start = System.nanoTime();
        Engine engine = root().engine();
        PostgresLocks locks = null;
        EngramServer server;
        try {
            // On PostgreSQL the index follows the other servers' writes from the start; on the SQLite file it opens
            // (with the embedding model) in the background once the server listens, so that the server starts at once.
            MemorySearch search = engine.onPostgres() ? engine.search() : new LazySearch(engine::search);
            EngramServer.Builder b = EngramServer.builder(engine.store(), search).host(host).port(port).defaultModel(model)
                    .modelPolicy(ModelPolicy.providersOnly().allow(allowModels)).runtime(rb -> {
                        engine.configure(rb);
                        limits.configure(rb);
                        if (web) {
                            rb.web(WebFetcher.http(), SearchProviders.fromEnvironment(root().environment()));
                        }
                    });
            limits.apply(b);
            if (engine.onPostgres()) {
                String url = root().postgresUrl().orElseThrow();
                locks = PostgresLocks.open(url, root().environment().get("PGUSER"), root().environment().get("PGPASSWORD"),
                        maxTurns);
                b.turnLock(TurnLock.byName(locks::acquire));
            }
            server = b.start();
            engine.warmUp(); // once listening: the first search costs what later ones cost
        } catch (RuntimeException e) {
            if (locks != null) {
                locks.close();
            }
            engine.close();
            throw e;
        }
        CountDownLatch closed = new CountDownLatch(1);
        PostgresLocks heldLocks = locks;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            err().println("Stopping: turns in progress are cancelled.");
            err().flush();
            server.close();
            if (heldLocks != null) {
                heldLocks.close();
            }
            engine.close();
            closed.countDown();
        }, "engram-serve-shutdown"));
        err().printf(Locale.ROOT, "Engram server listening on http://%s:%d (Letta V1 API) — started in %d ms%n", host,
                server.port(), Duration.ofNanos(System.nanoTime() - start).toMillis());
        err().println("  store:   " + engine.storeDescription());
        err().println("  sandbox: " + ShellOptions.sandboxDescription(root().unsafeHostShell));
        err().println("  model:   " + model + " (for agents created without one)");
        err().println("  models:  provider models" + (allowModels.isEmpty() ? "" : ", " + String.join(", ", allowModels))
                + " (what API users and agent files may name)");
        err().println("  limits:  " + limits.describe());
        if (engine.store().keys().list().isEmpty()) {
            err().println("  No API keys yet: create one with 'engram keys create --user USER' (or --admin).");
        }
        err().flush();
        server.awaitShutdown();
        closed.await();
        return 0;
    }
}

package dev.engram.cli;

import dev.engram.agents.TokenCounter;
import dev.engram.framework.ModelPolicy;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.postgres.PostgresLocks;
import dev.engram.server.EngramServer;
import dev.engram.server.McpServerPolicy;
import dev.engram.server.TurnLock;
import dev.engram.tools.OutboundChannel;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.SearchProviders;
import dev.engram.tools.ShellOptions;
import dev.engram.tools.ShellSessions;
import dev.engram.tools.WebFetcher;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.event.Level;
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

    @Option(names = "--webhook", paramLabel = "URL", description = "Let API users give agents the message tool, POSTing "
            + "each message as JSON to this URL (channel 'webhook'; 10 s timeout, 3 attempts on 5xx, no redirects); off by "
            + "default.")
    URI webhook;

    @Option(names = "--mcp-command", paramLabel = "PROGRAM", description = "Let API users (not only admin keys) register "
            + "stdio MCP servers that run this program, written exactly so in their command (repeatable). Name only "
            + "programs whose arguments cannot make them run other code: npx, uvx, python or a shell can.")
    List<String> mcpPrograms = new ArrayList<>();

    @Option(names = "--mcp-private-networks", description = "Let API users' SSE and Streamable HTTP MCP servers be at "
            + "loopback, private and other non-public addresses (by default only public ones, as for the web tools).")
    boolean mcpPrivateNetworks;

    @Option(names = "--code", description = "Let API users give agents run_code (Letta's) and execute_code (code mode: a "
            + "program that calls the agent's tools): Python and JavaScript in the bubblewrap sandbox, no network; off by "
            + "default.")
    boolean code;

    @Option(names = "--management-port", paramLabel = "N",
            description = "Serve /metrics (Prometheus text, admin keys only) and the probes /livez, /readyz on this port "
                    + "(0 picks one) instead of on --port; by default /metrics is on --port.")
    Integer managementPort;

    @Option(names = "--log-format", defaultValue = "text", paramLabel = "FORMAT",
            description = "How log lines are written to standard error: text (default) or json (one object per line, "
                    + "with the request_id of the request that wrote it; the start lines too).")
    String logFormat;
    @Option(names = "--max-image-bytes", paramLabel = "BYTES", defaultValue = "5242880",
            description = "The largest image a user message may carry, decoded (default ${DEFAULT-VALUE}, 5 MiB; at most "
                    + "the store's 20 MiB); a larger one is refused with 413.")
    int maxImageBytes;

    @Option(names = "--max-images-per-message", paramLabel = "N", defaultValue = "10",
            description = "The most images one user message may carry (default ${DEFAULT-VALUE}; 0 refuses images).")
    int maxImagesPerMessage;

    @Mixin
    LimitOptions limits;

    /**
     * Called by {@code main} before picocli parses a {@code serve} command line: on a daemon thread, routes
     * java.util.logging as the server does, then {@linkplain EngramServer#prepare() prepares} what every server's start
     * needs, so that it is done on the other core while the arguments are parsed. A failure there is left for the start
     * itself to meet, which does the same work again.
     */
    static void prepareInBackground() {
        Thread.ofPlatform().daemon().name("engram-prepare").start(() -> {
            try {
                JulRoute.install();
                EngramServer.prepare();
            } catch (RuntimeException | LinkageError e) {
                // the server's own start does this again, and reports what fails
            }
        });
    }

    @Override
    int run() throws InterruptedException {
        long start = System.nanoTime();
        LogLines.format(switch (logFormat.toLowerCase(Locale.ROOT)) {
            case "text" -> LogLines.Format.TEXT;
            case "json" -> LogLines.Format.JSON;
            default -> throw usage("--log-format is text or json, not '" + logFormat + "'.");
        });
        // Helidon's and Lucene's java.util.logging through the same lines, WARNING and above: only Engram's start lines.
        JulRoute.install();
        Engine engine = root().engine();
        PostgresLocks locks = null;
        EngramServer server;
        CompletableFuture<Void> warmedUp = new CompletableFuture<>();
        try {
            // On PostgreSQL the index follows the other servers' writes from the start; on the SQLite file it opens
            // (with the embedding model) in the background once the server listens, so that the server starts at once.
            // Built before the server starts: without bubblewrap, python3 or node it fails here, saying what to install.
            CodeRunner runner = code ? CodeRunner.sandboxed() : null;
            // The store opens on a thread of its own while the server is built over it (its calls wait for the open);
            // the server listens only once it opened, and a store that cannot open fails the start, nothing listening.
            CompletableFuture<Void> storeOpened = engine.openStoreInBackground();
            MemorySearch search = engine.onPostgres() ? engine.search() : new LazySearch(engine::search);
            EngramServer.Builder b = EngramServer.builder(engine.store(), search).host(host).port(port).defaultModel(model)
                    .modelPolicy(ModelPolicy.providersOnly().allow(allowModels)).runtime(rb -> {
                        engine.configure(rb);
                        limits.configure(rb);
                        if (web) {
                            rb.web(WebFetcher.http(), SearchProviders.fromEnvironment(root().environment()));
                        }
                        if (webhook != null) {
                            rb.outboundChannel(OutboundChannel.webhook("webhook", webhook));
                        }
                        if (runner != null) {
                            rb.code(runner);
                        }
                    });
            limits.apply(b);
            b.mcpServers(McpServerPolicy.defaults().allowingPrograms(Set.copyOf(mcpPrograms))
                    .allowingPrivateAddresses(mcpPrivateNetworks));
            if (managementPort != null) {
                b.managementPort(managementPort);
            }
            b.imageLimits(maxImageBytes, maxImagesPerMessage);
            if (engine.onPostgres()) {
                String url = root().postgresUrl().orElseThrow();
                locks = PostgresLocks.open(url, root().environment().get("PGUSER"), root().environment().get("PGPASSWORD"),
                        maxTurns);
                b.turnLock(TurnLock.byName(locks::acquire));
            }
            // Ready once listening (a turn and a search are answered correctly; a search that comes while the
            // embedding model loads waits for it); /readyz says "warm": false until the warm-up below ends.
            b.warmUpAfterReady(warmedUp);
            b.listenAfter(storeOpened);
            server = b.start();
            // Once listening: the first search costs what later ones cost (the index, the embedding model, the server's
            // own search path, a real agent's first request, and the token counter of the default model, which every
            // request that opens an agent needs).
            String counterModel = TokenCounter.modelName(model);
            EngramServer started = server;
            engine.warmUp(() -> {
                TokenCounter.forModel(counterModel).count("warm up");
                started.warmUp();
            }).whenComplete((done, failure) -> warmedUp.complete(null));
        } catch (RuntimeException e) {
            if (locks != null) {
                locks.close();
            }
            engine.close();
            throw e;
        }
        CountDownLatch closed = new CountDownLatch(1);
        PostgresLocks heldLocks = locks;
        AtomicBoolean stopping = new AtomicBoolean();
        Runnable stop = () -> {
            if (!stopping.compareAndSet(false, true)) {
                return;
            }
            if (LogLines.format() == LogLines.Format.JSON) {
                LogLines.write(Level.INFO, "dev.engram.serve", "Stopping: turns in progress are cancelled.", null);
            } else {
                err().println("Stopping: turns in progress are cancelled.");
                err().flush();
            }
            server.close();
            if (heldLocks != null) {
                heldLocks.close();
            }
            engine.close();
            closed.countDown();
        };
        // SIGTERM and Ctrl-C stop the server in order before the JVM exits; the hook covers any other way out.
        StopSignals signals = StopSignals.install(stop);
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "engram-serve-shutdown"));
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "Engram server listening on http://%s:%d (Letta V1 API) — started in %d ms",
                host, server.port(), Duration.ofNanos(System.nanoTime() - start).toMillis()));
        lines.add("  store:   " + engine.storeDescription());
        lines.add("  sandbox: " + ShellOptions.sandboxDescription(root().unsafeHostShell));
        if (root().shellSession) {
            lines.add("  shell:   a persistent sandboxed session per agent and session (--shell-session; idle "
                    + ShellSessions.DEFAULT_IDLE_TIMEOUT.toMinutes() + " min, at most " + ShellSessions.DEFAULT_MAX_SESSIONS + ")");
        }
        lines.add("  model:   " + model + " (for agents created without one)");
        lines.add("  models:  provider models" + (allowModels.isEmpty() ? "" : ", " + String.join(", ", allowModels))
                + " (what API users and agent files may name)");
        lines.add("  limits:  " + limits.describe());
        lines.add(String.format(Locale.ROOT, "  metrics: http://%s:%d/metrics (admin keys); probes /livez, /readyz", host,
                server.managementPort().orElse(server.port())));
        if (engine.store().keys().list().isEmpty()) {
            lines.add("  No API keys yet: create one with 'engram keys create --user USER' (or --admin).");
        }
        if (LogLines.format() == LogLines.Format.JSON) {
            lines.forEach(l -> LogLines.write(Level.INFO, "dev.engram.serve", l.strip(), null));
        } else {
            lines.forEach(err()::println);
        }
        err().flush();
        // After the start lines (the warm-up takes seconds, but may have ended already): when it ended, for operators
        warmedUp.thenRun(() -> {
            String done = String.format(Locale.ROOT, "Warm-up done in %d ms (search index, embedding model, first requests)",
                    Duration.ofNanos(System.nanoTime() - start).toMillis());
            if (stopping.get()) {
                return;
            }
            if (LogLines.format() == LogLines.Format.JSON) {
                LogLines.write(Level.INFO, "dev.engram.serve", done, null);
            } else {
                err().println(done);
                err().flush();
            }
        });
        server.awaitShutdown();
        closed.await();
        return signals.exitStatus();
    }
}

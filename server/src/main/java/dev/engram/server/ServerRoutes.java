package dev.engram.server;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.SearchHealth;
import io.helidon.http.Method;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server's route table: which handler serves which path, every route group in the order Helidon matches them, and
 * the routings that serve it: the request id and authentication filters before any route, Letta's unsupported operations'
 * explained 501s, the web console's files, and Letta's error answers; on a management port of its own, the probes and
 * the metrics alone.
 */
final class ServerRoutes {
    private final Api api;
    private final OpsRoutes ops;
    private final Providers providers;
    private final ModelCatalog models;
    private final CustomTools custom;
    private final McpServers mcp;
    private final BatchRunner batches;
    private final MemorySearch search;
    private final List<Route> routes;

    /** The table over the server's parts; {@code metricsHere}: {@code GET /metrics} is on the server's own port. */
    ServerRoutes(Api api, OpsRoutes ops, Providers providers, ModelCatalog models, CustomTools custom, McpServers mcp,
            BatchRunner batches, MemorySearch search, boolean metricsHere) {
        this.api = api;
        this.ops = ops;
        this.providers = providers;
        this.models = models;
        this.custom = custom;
        this.mcp = mcp;
        this.batches = batches;
        this.search = search;
        this.routes = table(metricsHere);
    }

    /** Every endpoint, in the order Helidon matches them (for tests that walk every endpoint). */
    List<Route> list() {
        return routes;
    }

    /**
     * The server port's routing over {@code routing} (Helidon's first routing builder, which a server's start builds
     * beside other work): the request id first, so that authentication's refusals carry it too.
     */
    HttpRouting.Builder routing(HttpRouting.Builder routing, Metrics metrics, VerifiedKeys keys) {
        routing.addFilter(new RequestIds(metrics));
        routing.addFilter(new Authentication(keys, routes));
        // The unsupported operations' explained 501s first, so that a route with a parameter does not take them.
        Unsupported.registerBefore(routing, UnsupportedOperations.ALL, routes);
        Route.register(routing, routes);
        new ConsoleAssets().register(routing);
        Unsupported.registerCatchAll(routing, UnsupportedOperations.ALL, routes);
        ErrorAnswers.register(routing);
        return routing;
    }

    /** The management port's routing: the probes and the metrics, behind the same request ids and authentication. */
    HttpRouting.Builder managementRouting(Metrics metrics, VerifiedKeys keys) {
        List<Route> management = new ArrayList<>(ops.probes());
        management.add(ops.metrics());
        HttpRouting.Builder routing = HttpRouting.builder().addFilter(new RequestIds(metrics))
                .addFilter(new Authentication(keys, management));
        Route.register(routing, management);
        ErrorAnswers.register(routing);
        return routing;
    }

    /**
     * The table. Its second half is built on another thread while this one builds the first (each route is a lambda the
     * JVM spins at its first use: hundreds at a start, which a second core shares); the order is the same either way.
     */
    private List<Route> table(boolean metricsHere) {
        CompletableFuture<List<Route>> later = CompletableFuture.supplyAsync(this::laterRoutes,
                task -> Thread.ofPlatform().daemon().name("engram-routes").start(task));
        List<Route> routes = new ArrayList<>(Route.table().twin(Route.open(Method.GET, "/v1/health", this::health)).list());
        routes.addAll(ops.probes());
        if (metricsHere) {
            routes.add(ops.metrics());
        }
        // Before the classes whose {id} patterns would take 'count', 'search' or 'batches'.
        routes.addAll(new RelationRoutes(api).routes());
        routes.addAll(new AgentSearchRoutes(api).routes());
        routes.addAll(new MessageSearchRoutes(api).routes());
        routes.addAll(new PassageSearchRoutes(api).routes());
        routes.addAll(new BatchRoutes(api, batches).routes());
        routes.addAll(new StatusRoutes(ops).routes());
        routes.addAll(new MemoryFileRoutes(api).routes());
        routes.addAll(new AgentRoutes(api).routes());
        routes.addAll(new AgentOpsRoutes(api).routes());
        routes.addAll(new PreviewRoutes(api).routes());
        routes.addAll(new GenerateRoutes(api).routes());
        routes.addAll(new ChatCompletionsRoutes(api).routes());
        routes.addAll(new MessageEditRoutes(api).routes());
        routes.addAll(new MessageRoutes(api).routes());
        routes.addAll(new CoreMemoryRoutes(api).routes());
        routes.addAll(new BlockRoutes(api).routes());
        routes.addAll(new PassageRoutes(api).routes());
        routes.addAll(new McpServerRoutes(api, mcp).routes());
        routes.addAll(new ArchiveRoutes(api).routes());
        routes.addAll(joined(later));
        return List.copyOf(routes);
    }

    /** The table's second half, in order (after {@link ArchiveRoutes}). */
    private List<Route> laterRoutes() {
        List<Route> routes = new ArrayList<>();
        // Before ToolRoutes: /v1/tools/count is not a tool id.
        routes.addAll(new CustomToolRoutes(api, custom).routes());
        routes.addAll(new GroupRoutes(api).routes());
        routes.addAll(new ToolRoutes(api, custom).routes());
        routes.addAll(new IdentityRoutes(api).routes());
        routes.addAll(new ConversationRoutes(api).routes());
        routes.addAll(new RunRoutes(api).routes());
        routes.addAll(new StepRoutes(api).routes());
        routes.addAll(new ModelRoutes(models).routes());
        routes.addAll(new ProviderRoutes(api, providers).routes());
        routes.addAll(new ScheduleRoutes(api).routes());
        routes.addAll(new WorkRoutes(api).routes());
        routes.addAll(new StartupRoutes(api).routes());
        routes.addAll(new ContextRoutes(api).routes());
        routes.addAll(new NoteRoutes(api).routes());
        routes.addAll(new CanvasRoutes(api).routes());
        routes.addAll(new MemoryAddRoutes(api).routes());
        routes.addAll(new JobRoutes(api).routes());
        routes.addAll(new FolderRoutes(api).routes());
        routes.addAll(new AgentFolderRoutes(api).routes());
        return routes;
    }

    /** What {@code part} returned, or what it threw, unwrapped. */
    private static <T> T joined(CompletableFuture<T> part) {
        try {
            return part.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /**
     * {@code GET /v1/health/}: {@code status} {@code ok}, or {@code degraded} with the {@code reasons} (search on BM25
     * alone while the embedding model is unavailable, an in-memory index while the index directory cannot be used): the
     * server still answers, in a lesser way that each reason names. Always 200, so that a probe does not take a degraded
     * server out of service.
     */
    private void health(ServerRequest req, ServerResponse res) {
        String version = ServerRoutes.class.getPackage().getImplementationVersion();
        SearchHealth searchHealth = search.health();
        ObjectNode body = Body.JSON.createObjectNode().put("version", version == null ? "dev" : version)
                .put("status", searchHealth.degraded() ? "degraded" : "ok").put("degraded", searchHealth.degraded());
        ArrayNode reasons = body.putArray("reasons");
        searchHealth.reasons().forEach(reasons::add);
        Api.json(res, body);
    }
}

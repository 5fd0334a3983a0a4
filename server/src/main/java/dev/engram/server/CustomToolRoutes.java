package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;
import static io.helidon.http.Method.PUT;

import dev.engram.agents.Agent;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.ToolResult;
import dev.engram.memory.CustomTool;
import dev.engram.memory.CustomToolSpec;
import dev.engram.memory.DuplicateException;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.node.ObjectNode;

/**
 * Letta's custom tool endpoints: create ({@code POST /v1/tools/}, 409 for a name the user has), upsert ({@code PUT}),
 * modify and delete ({@code /v1/tools/{tool_id}}), {@code count}, {@code search} ({@code add-base-tools} is
 * {@link StartupRoutes}'), running
 * source with arguments ({@code POST /v1/tools/run}) and running an agent's tool ({@code POST
 * /v1/agents/{agent_id}/tools/{tool_name}/run}). Tools are per user: a user key sees its own (another's id is 404), an
 * admin key creates for the body's {@code user_id} (default {@value Api#DEFAULT_USER}). Source runs only when the
 * operator enabled code execution ({@code engram serve --code}); otherwise a run is a 403 naming the flag and nothing
 * runs. Listing and retrieving are {@link ToolRoutes}'.
 */
final class CustomToolRoutes {
    private final Api api;
    private final CustomTools tools;
    private final ToolRuns runs;

    CustomToolRoutes(Api api, CustomTools tools) {
        this.api = api;
        this.tools = tools;
        this.runs = new ToolRuns(tools);
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(POST, "/v1/tools", this::create))
                .twin(Route.caller(PUT, "/v1/tools", this::upsert))
                .twin(Route.caller(GET, "/v1/tools/count", this::count))
                .add(Route.caller(POST, "/v1/tools/search", this::search))
                .add(Route.caller(POST, "/v1/tools/run", this::runSource))
                .add(Route.caller(PATCH, "/v1/tools/{tool_id}", this::modify))
                .add(Route.caller(DELETE, "/v1/tools/{tool_id}", this::delete))
                .add(Route.agent(api, POST, "/v1/agents/{agent_id}/tools/{tool_name}/run", this::runForAgent))
                .list();
    }

    private void create(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String owner = owner(caller, body);
        CustomToolSpec spec = ToolSources.create(body);
        refuseBuiltin(spec.name());
        try {
            Api.json(res, ToolSources.view(api.store.customTools().create(owner, spec)));
        } catch (DuplicateException e) {
            throw ApiException.conflict(e.getMessage());
        }
        api.runtime.retool(owner);
    }

    private void upsert(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String owner = owner(caller, body);
        CustomToolSpec spec = ToolSources.create(body);
        refuseBuiltin(spec.name());
        Api.json(res, ToolSources.view(api.store.customTools().upsert(owner, spec)));
        api.runtime.retool(owner);
    }

    private void modify(Caller caller, ServerRequest req, ServerResponse res) {
        CustomTool t = owned(caller, req);
        CustomToolSpec spec = ToolSources.update(Api.body(req), t);
        boolean renamed = !spec.name().equals(t.name());
        if (renamed) {
            refuseBuiltin(spec.name());
            tools.checkRename(t.userId(), t.name());
        }
        CustomTool changed;
        try {
            changed = api.store.customTools().update(t.userId(), t.id(), spec);
        } catch (DuplicateException e) {
            throw ApiException.conflict(e.getMessage());
        }
        if (renamed) {
            tools.changed(t.userId(), t.name(), Optional.of(spec.name()));
        } else {
            api.runtime.retool(t.userId());
        }
        Api.json(res, ToolSources.view(changed));
    }

    private void delete(Caller caller, ServerRequest req, ServerResponse res) {
        CustomTool t = owned(caller, req);
        api.store.customTools().delete(t.userId(), t.id());
        tools.changed(t.userId(), t.name(), Optional.empty());
        Api.json(res, Body.JSON.nullNode());
    }

    /** Letta's count, with its filters, over every tool the caller sees. */
    private void count(Caller caller, ServerRequest req, ServerResponse res) {
        List<String> names = new ArrayList<>(split(Query.all(req, "names")));
        Query.string(req, "name").ifPresent(names::add);
        List<String> ids = split(Query.all(req, "tool_ids"));
        List<String> types = split(Query.all(req, "tool_types"));
        List<String> excluded = split(Query.all(req, "exclude_tool_types"));
        Optional<String> search = Query.string(req, "search").map(s -> s.toLowerCase(Locale.ROOT));
        boolean onlyLetta = Query.bool(req, "return_only_letta_tools", false);
        boolean noLetta = Query.bool(req, "exclude_letta_tools", false);
        long n = ToolRoutes.all(api, tools, caller).stream()
                .filter(t -> names.isEmpty() || names.contains(t.path("name").asString()))
                .filter(t -> ids.isEmpty() || ids.contains(t.path("id").asString()))
                .filter(t -> types.isEmpty() || types.contains(t.path("tool_type").asString()))
                .filter(t -> !excluded.contains(t.path("tool_type").asString()))
                .filter(t -> search.map(s -> t.path("name").asString().toLowerCase(Locale.ROOT).contains(s)).orElse(true))
                .filter(t -> !onlyLetta || t.path("tool_type").asString().startsWith("letta_"))
                .filter(t -> !noLetta || !t.path("tool_type").asString().startsWith("letta_"))
                .count();
        Api.json(res, Body.JSON.getNodeFactory().numberNode(n));
    }

    /**
     * Letta's tool search, on words instead of embeddings: a tool's score is the share of the query's words found in its
     * name, description and tags (every tool the filters keep when there is no query), best first.
     */
    private void search(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        int limit = body.integer("limit").orElse(50);
        if (limit < 1 || limit > 100) {
            throw body.problem("less_than_equal", "limit must be 1 to 100", "limit");
        }
        Optional<String> mode = body.string("search_mode");
        if (mode.isPresent() && !List.of("vector", "fts", "hybrid").contains(mode.get())) {
            throw body.problem("literal_error", "Input should be 'vector', 'fts' or 'hybrid'", "search_mode");
        }
        List<String> types = body.strings("tool_types").orElse(List.of());
        List<String> tags = body.strings("tags").orElse(List.of());
        List<String> words = Arrays.stream(body.string("query").orElse("").toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+"))
                .filter(w -> !w.isBlank()).toList();
        record Hit(ObjectNode tool, double score) {
        }
        List<Hit> hits = new ArrayList<>();
        for (ObjectNode t : ToolRoutes.all(api, tools, caller)) {
            if (!types.isEmpty() && !types.contains(t.path("tool_type").asString())) {
                continue;
            }
            List<String> own = new ArrayList<>();
            t.path("tags").forEach(n -> own.add(n.asString()));
            if (!tags.isEmpty() && own.stream().noneMatch(tags::contains)) {
                continue;
            }
            String text = (t.path("name").asString() + " " + t.path("description").asString("") + " " + String.join(" ", own))
                    .toLowerCase(Locale.ROOT).replace('_', ' ');
            long found = words.stream().filter(text::contains).count();
            if (words.isEmpty() || found > 0) {
                hits.add(new Hit(t, words.isEmpty() ? 0.0 : (double) found / words.size()));
            }
        }
        hits.sort((a, b) -> Double.compare(b.score(), a.score()));
        List<ObjectNode> out = new ArrayList<>();
        for (int i = 0; i < Math.min(limit, hits.size()); i++) {
            ObjectNode r = Body.JSON.createObjectNode();
            r.set("tool", hits.get(i).tool());
            r.putNull("embedded_text");
            r.put("fts_rank", i + 1);
            r.putNull("vector_rank");
            r.put("combined_score", hits.get(i).score());
            out.add(r);
        }
        Api.json(res, out);
    }

    private void runSource(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, runs.fromSource(Api.body(req)));
    }

    /** Runs a tool attached to the agent through the agent's tool pipeline; the caller asked, so it is approved. */
    private void runForAgent(Agent agent, ServerRequest req, ServerResponse res) {
        String name = req.path().pathParameters().get("tool_name");
        if (!agent.definition().tools().contains(name)) {
            throw ApiException.notFound("Tool '" + name + "' not found or not attached to agent '" + agent.id() + "'.");
        }
        Body body = Api.body(req);
        String args = body.object("args").map(ObjectNode::toString).orElse("{}");
        if (api.runtime.availableTools().stream().noneMatch(name::equals)
                && api.userTools.find(agent.userId(), name).filter(t -> t instanceof CustomTools.Unavailable).isPresent()) {
            throw ApiException.forbidden("Tool '" + name + "' is written in source and did not run. " + CustomTools.NO_RUNNER);
        }
        ToolResult result = agent.runTool(name, args, request -> CompletableFuture.completedFuture(ApprovalDecision.approve()));
        ObjectNode o = Body.JSON.createObjectNode().put("status", result.isError() ? "error" : "success");
        if (result.isError()) {
            o.putNull("func_return");
        } else {
            o.put("func_return", result.content());
        }
        o.putArray("stdout");
        var stderr = o.putArray("stderr");
        if (result.isError()) {
            stderr.add(result.content());
        }
        o.putNull("agent_state");
        o.putNull("sandbox_config_fingerprint");
        Api.json(res, o);
    }

    /** The caller's custom tool of the path's id; 404 for none or another user's. */
    private CustomTool owned(Caller caller, ServerRequest req) {
        String id = req.path().pathParameters().get("tool_id");
        for (String user : api.users(caller)) {
            Optional<CustomTool> t = api.store.customTools().get(user, id);
            if (t.isPresent()) {
                return t.get();
            }
        }
        throw ApiException.notFound("Tool '" + id + "' not found.");
    }

    /** The user a new tool belongs to: the key's, or for an admin key the body's {@code user_id} or the default user. */
    private static String owner(Caller caller, Body body) {
        Optional<String> named = body.string("user_id");
        if (caller.user().isPresent()) {
            if (named.isPresent() && !named.get().equals(caller.user().get())) {
                throw ApiException.forbidden("A user key creates tools for its own user only; only an admin key names "
                        + "another user_id. Nothing was stored.");
            }
            return caller.user().get();
        }
        return named.orElse(Api.DEFAULT_USER);
    }

    private void refuseBuiltin(String name) {
        if (tools.builtin(name)) {
            throw ApiException.conflict("'" + name + "' is the name of one of this server's own tools; give the function "
                    + "another name. Nothing was stored.");
        }
    }

    /** Repeated parameters, each possibly comma-separated, as Letta reads them. */
    private static List<String> split(List<String> values) {
        return values.stream().flatMap(v -> Arrays.stream(v.split(","))).map(String::strip).filter(v -> !v.isEmpty()).toList();
    }
}

package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;
import static io.helidon.http.Method.PUT;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.mcp.McpServer;
import dev.engram.mcp.McpServerException;
import dev.engram.mcp.McpServerStatus;
import dev.engram.mcp.McpTransport;
import dev.engram.memory.McpServerRecord;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Letta's MCP server endpoints over {@link McpServers}: {@code /v1/mcp-servers} (create, list, retrieve, modify, delete,
 * tools, run a tool, refresh, connect) and the older {@code /v1/tools/mcp/servers} (by server name). A user key sees its
 * own servers only (another's is 404); an admin key sees every user's and registers for {@code user_id} (default
 * {@value Api#DEFAULT_USER}). Each server's view carries a {@code status}: connected, failing (it crashed, stalled or
 * cannot be reached, with {@code last_error}) or circuit_open (calls refused until {@code retry_at}).
 */
final class McpServerRoutes {
    private final Api api;
    private final McpServers servers;

    McpServerRoutes(Api api, McpServers servers) {
        this.api = api;
        this.servers = servers;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(POST, "/v1/mcp-servers", this::create))
                .twin(Route.caller(GET, "/v1/mcp-servers", this::list))
                .add(Route.caller(GET, "/v1/mcp-servers/connect/{mcp_server_id}", this::connect))
                .add(Route.caller(GET, "/v1/mcp-servers/{mcp_server_id}", (c, req, res) -> Api.json(res, view(byId(c, req)))))
                .add(Route.caller(PATCH, "/v1/mcp-servers/{mcp_server_id}", this::modify))
                .add(Route.caller(DELETE, "/v1/mcp-servers/{mcp_server_id}", this::delete))
                .add(Route.caller(GET, "/v1/mcp-servers/{mcp_server_id}/tools", this::tools))
                .add(Route.caller(GET, "/v1/mcp-servers/{mcp_server_id}/tools/{tool_id}", this::tool))
                .add(Route.caller(POST, "/v1/mcp-servers/{mcp_server_id}/tools/{tool_id}/run", this::run))
                .add(Route.caller(PATCH, "/v1/mcp-servers/{mcp_server_id}/refresh", this::refresh))
                .add(Route.caller(GET, "/v1/tools/mcp/servers", this::legacyList))
                .add(Route.caller(PUT, "/v1/tools/mcp/servers", this::legacyAdd))
                .add(Route.caller(POST, "/v1/tools/mcp/servers/test", this::legacyTest))
                .add(Route.caller(POST, "/v1/tools/mcp/servers/connect", this::legacyTest))
                .add(Route.caller(GET, "/v1/tools/mcp/servers/{mcp_server_name}/tools", this::legacyTools))
                .add(Route.caller(POST, "/v1/tools/mcp/servers/{mcp_server_name}/resync", this::legacyResync))
                .add(Route.caller(POST, "/v1/tools/mcp/servers/{mcp_server_name}/tools/{tool_name}/execute", this::legacyRun))
                .add(Route.caller(POST, "/v1/tools/mcp/servers/{mcp_server_name}/{mcp_tool_name}", this::legacyAddTool))
                .add(Route.caller(PATCH, "/v1/tools/mcp/servers/{mcp_server_name}", this::legacyModify))
                .add(Route.caller(DELETE, "/v1/tools/mcp/servers/{mcp_server_name}", this::legacyDelete))
                .list();
    }

    // ---- /v1/mcp-servers ----------------------------------------------------------------------------------------

    private void create(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String name = body.requiredString("server_name").strip();
        Body config = Body.of(body.object("config").orElseThrow(() -> body.problem("missing", "Field required", "config")),
                body.location("config"));
        McpConfig c = McpConfig.parse(config, "mcp_server_type", McpTransport.STREAMABLE_HTTP, caller.admin());
        Api.json(res, view(servers.create(caller, owner(caller, body), name, c)));
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, visible(caller).stream().map(this::view).toList());
    }

    private void modify(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byId(caller, req);
        Body body = Api.body(req);
        String name = body.string("server_name").map(String::strip).orElse(r.name());
        McpConfig c = servers.config(r);
        if (body.has("config")) {
            c = c.merge(Body.of(body.object("config").orElseThrow(), body.location("config")), "mcp_server_type");
        }
        Api.json(res, view(servers.update(caller, r, name, withOperator(c, caller))));
    }

    private void delete(Caller caller, ServerRequest req, ServerResponse res) {
        servers.delete(byId(caller, req));
        res.status(Status.NO_CONTENT_204).send();
    }

    private void tools(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byId(caller, req);
        Api.json(res, servers.server(r).tools().stream().map(t -> toolView(r, t)).toList());
    }

    private void tool(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byId(caller, req);
        Api.json(res, toolView(r, tool(r, req.path().pathParameters().get("tool_id"))));
    }

    private void run(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byId(caller, req);
        DynamicTool t = tool(r, req.path().pathParameters().get("tool_id"));
        Api.json(res, run(t, Api.body(req)));
    }

    private void refresh(Caller caller, ServerRequest req, ServerResponse res) {
        refreshView(servers.refresh(byId(caller, req)), res);
    }

    private void connect(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byId(caller, req);
        servers.refresh(r);
        ObjectNode o = view(store(r));
        o.set("tools", Body.JSON.valueToTree(servers.server(store(r)).tools().stream().map(t -> toolView(r, t)).toList()));
        Api.json(res, o);
    }

    // ---- /v1/tools/mcp/servers (Letta's older routes, by name) ------------------------------------------------

    private void legacyList(Caller caller, ServerRequest req, ServerResponse res) {
        ObjectNode o = Body.JSON.createObjectNode();
        visible(caller).forEach(r -> o.set(r.name(), legacyView(r)));
        Api.json(res, o);
    }

    private void legacyAdd(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String name = body.requiredString("server_name").strip();
        McpServerRecord r = servers.create(caller, owner(caller, body), name,
                McpConfig.parse(body, "type", McpTransport.SSE, caller.admin()));
        Api.json(res, api.store.mcpServers().list(r.userId()).stream().map(this::legacyView).toList());
    }

    /** Connects to a server the body describes, without keeping it, and lists its tools. */
    private void legacyTest(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String name = body.requiredString("server_name").strip();
        McpConfig c = McpConfig.parse(body, "type", McpTransport.SSE, caller.admin());
        try (McpServer server = servers.probe(caller, name, c)) {
            List<McpSchema.Tool> tools = server.listTools();
            ObjectNode o = Body.JSON.createObjectNode().put("status", "success");
            o.set("tools", Body.JSON.valueToTree(tools.stream().map(McpServerRoutes::mcpToolView).toList()));
            Api.json(res, o);
        } catch (McpServerException e) {
            throw ApiException.of(Status.BAD_GATEWAY_502, e.getMessage());
        }
    }

    private void legacyTools(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byName(caller, req);
        Api.json(res, servers.server(r).knownTools().stream().map(McpServerRoutes::mcpToolView).toList());
    }

    private void legacyResync(Caller caller, ServerRequest req, ServerResponse res) {
        refreshView(servers.refresh(byName(caller, req)), res);
    }

    /** What a refresh found, as Letta's resync answers it. */
    private static void refreshView(McpServers.Refresh r, ServerResponse res) {
        ObjectNode o = Body.JSON.createObjectNode();
        r.added().forEach(o.putArray("added")::add);
        r.removed().forEach(o.putArray("deleted")::add);
        r.tools().forEach(o.putArray("tools")::add);
        o.withArray("added");
        o.withArray("deleted");
        Api.json(res, o);
    }

    private void legacyRun(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byName(caller, req);
        Api.json(res, run(tool(r, req.path().pathParameters().get("tool_name")), Api.body(req)));
    }

    /** Letta's "add an MCP tool": Engram's tools of a server exist once it is listed, so this answers the tool. */
    private void legacyAddTool(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byName(caller, req);
        Api.json(res, toolView(r, tool(r, req.path().pathParameters().get("mcp_tool_name"))));
    }

    private void legacyModify(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byName(caller, req);
        Body body = Api.body(req);
        McpConfig c = withOperator(servers.config(r).merge(body, "type"), caller);
        Api.json(res, legacyView(servers.update(caller, r, body.string("server_name").map(String::strip).orElse(r.name()), c)));
    }

    private void legacyDelete(Caller caller, ServerRequest req, ServerResponse res) {
        McpServerRecord r = byName(caller, req);
        servers.delete(r);
        Api.json(res, api.store.mcpServers().list(r.userId()).stream().map(this::legacyView).toList());
    }

    // ---- shared ----------------------------------------------------------------------------------------------

    /** The user a new server belongs to: the key's, or for an admin key the body's {@code user_id} or the default user. */
    private static String owner(Caller caller, Body body) {
        Optional<String> named = body.string("user_id");
        if (caller.user().isPresent()) {
            if (named.isPresent() && !named.get().equals(caller.user().get())) {
                throw ApiException.forbidden("A user key registers MCP servers for its own user only; only an admin key "
                        + "names another user_id. Nothing was stored.");
            }
            return caller.user().get();
        }
        return named.orElse(Api.DEFAULT_USER);
    }

    /** A changed config keeps its operator mark only when an admin key changes it. */
    private static McpConfig withOperator(McpConfig c, Caller caller) {
        return new McpConfig(c.type(), c.command(), c.args(), c.env(), c.url(), c.authHeader(), c.authToken(), c.headers(),
                caller.admin());
    }

    private List<McpServerRecord> visible(Caller caller) {
        return caller.user().map(u -> api.store.mcpServers().list(u)).orElseGet(() -> api.store.mcpServers().listAll());
    }

    private McpServerRecord byId(Caller caller, ServerRequest req) {
        String id = req.path().pathParameters().get("mcp_server_id");
        return visible(caller).stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> ApiException.notFound("MCP server '" + id + "' not found."));
    }

    private McpServerRecord byName(Caller caller, ServerRequest req) {
        String name = req.path().pathParameters().get("mcp_server_name");
        return visible(caller).stream().filter(r -> r.name().equals(name)).findFirst()
                .orElseThrow(() -> ApiException.notFound("MCP server '" + name + "' not found."));
    }

    private McpServerRecord store(McpServerRecord r) {
        return api.store.mcpServers().get(r.userId(), r.id()).orElse(r);
    }

    /** The server's tool named by an Engram tool id or name, or by its MCP name. */
    private DynamicTool tool(McpServerRecord r, String id) {
        McpServer server = servers.server(r);
        String name = Ids.toolName(id);
        return server.tools().stream().filter(t -> t.name().equals(name) || t.name().equals(server.toolName(name)))
                .findFirst().orElseThrow(() -> ApiException.notFound("MCP server '" + r.name() + "' has no tool '" + id
                        + "' (refresh it if it has new tools)."));
    }

    /** Runs a tool through the tool pipeline (validation, timeout, truncation); the caller asked, so nothing asks again. */
    private static ObjectNode run(DynamicTool tool, Body body) {
        String args = body.object("args").map(ObjectNode::toString).orElse("{}");
        ToolExecutor executor = ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO)
                .build();
        ToolResult result = executor.execute(ToolCall.of(tool.name(), args), ToolContext.empty());
        ObjectNode o = Body.JSON.createObjectNode().put("status", result.isError() ? "error" : "success")
                .put("func_return", result.content());
        o.putArray("stdout");
        o.putArray("stderr");
        return o;
    }

    private ObjectNode view(McpServerRecord r) {
        ObjectNode o = Body.JSON.createObjectNode().put("id", r.id()).put("server_name", r.name());
        servers.config(r).fields(o, "mcp_server_type");
        o.set("status", status(servers.server(r).status()));
        o.put("created_at", r.createdAt().toString()).put("updated_at", r.updatedAt().toString());
        return o;
    }

    private ObjectNode legacyView(McpServerRecord r) {
        ObjectNode o = Body.JSON.createObjectNode().put("server_name", r.name());
        return servers.config(r).fields(o, "type");
    }

    private static ObjectNode status(McpServerStatus s) {
        ObjectNode o = Body.JSON.createObjectNode().put("state", s.state().label())
                .put("consecutive_failures", s.consecutiveFailures());
        o.put("last_error", s.lastError().orElse(null));
        o.put("retry_at", s.retryAt().map(Object::toString).orElse(null));
        return o;
    }

    private static ObjectNode toolView(McpServerRecord r, DynamicTool t) {
        ObjectNode o = LettaViews.tool(new ToolDefinition(t.name(), t.description(), t.parametersSchema(), t.safetyTier()));
        o.put("tool_type", "external_mcp");
        o.putObject("metadata_").putObject("mcp").put("server_name", r.name()).put("server_id", r.id());
        return o;
    }

    private static ObjectNode mcpToolView(McpSchema.Tool t) {
        ObjectNode o = Body.JSON.createObjectNode().put("name", t.name()).put("title", t.title())
                .put("description", t.description());
        o.set("inputSchema", Body.JSON.valueToTree(t.inputSchema() == null ? Map.of("type", "object")
                : t.inputSchema()));
        if (t.annotations() != null) {
            o.set("annotations", Body.JSON.valueToTree(t.annotations()));
        }
        return o;
    }
}

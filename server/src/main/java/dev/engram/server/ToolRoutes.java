package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.ToolRule;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolDefinition;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/tools} (the runtime's tools; Engram's tools are Java, so creating one over HTTP is not
 * supported) and an agent's tools: list, attach, detach, and whether a tool needs approval (Letta's
 * {@code requires_approval} rule).
 */
final class ToolRoutes {
    private final Api api;

    ToolRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/tools", this::list))
                .add(Route.caller(GET, "/v1/tools/{tool_id}", this::retrieve))
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/tools", this::agentTools))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/tools/attach/{tool_id}", this::attach))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/tools/detach/{tool_id}", this::detach))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/tools/approval/{tool_name}", this::approval))
                .list();
    }

    /** The runtime's tools, and the caller's own (their MCP servers'), as Letta's tools ({@code GET /v1/tools/count} counts them). */
    List<ObjectNode> all(Caller caller) {
        List<DynamicTool> tools = new ArrayList<>(api.runtime.toolRegistry().list());
        caller.user().ifPresent(user -> tools.addAll(api.userTools.list(user)));
        return tools.stream()
                .map(t -> LettaViews.tool(new ToolDefinition(t.name(), t.description(), t.parametersSchema(), t.safetyTier())))
                .toList();
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, true);
        Optional<String> name = Query.string(req, "name");
        Set<String> names = Set.copyOf(Query.all(req, "names"));
        List<ObjectNode> tools = new ArrayList<>(all(caller));
        tools.removeIf(t -> name.map(n -> !n.equals(t.path("name").asString())).orElse(false)
                || (!names.isEmpty() && !names.contains(t.path("name").asString())));
        Api.json(res, pages.page(tools, t -> t.path("id").asString(), "tool"));
    }

    private void retrieve(Caller caller, ServerRequest req, ServerResponse res) {
        String id = req.path().pathParameters().get("tool_id");
        Api.json(res, all(caller).stream().filter(t -> t.path("id").asString().equals(id)).findFirst()
                .orElseThrow(() -> ApiException.notFound("Tool '" + id + "' not found.")));
    }

    private void agentTools(Agent agent, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 10, true);
        Api.json(res, pages.page(api.tools(agent.definition()), t -> t.path("id").asString(), "tool"));
    }

    private void attach(Agent agent, ServerRequest req, ServerResponse res) {
        String name = Ids.toolName(req.path().pathParameters().get("tool_id"));
        if (api.runtime.toolRegistry().find(name).isEmpty() && api.userTools.find(agent.userId(), name).isEmpty()) {
            throw ApiException.notFound("Tool '" + req.path().pathParameters().get("tool_id") + "' not found.");
        }
        List<String> tools = new ArrayList<>(agent.definition().tools());
        if (!tools.contains(name)) {
            tools.add(name);
            api.runtime.changeTools(agent.userId(), agent.id(), tools);
        }
        Api.json(res, api.agentState(agent));
    }

    private void detach(Agent agent, ServerRequest req, ServerResponse res) {
        String name = Ids.toolName(req.path().pathParameters().get("tool_id"));
        AgentDefinition d = agent.definition();
        if (!d.tools().contains(name)) {
            throw ApiException.notFound("Tool '" + req.path().pathParameters().get("tool_id") + "' is not attached to agent '"
                    + agent.id() + "'.");
        }
        if (d.toolRules().stream().anyMatch(rule -> ruleNames(rule).contains(name))) {
            throw ApiException.conflict("Tool '" + name + "' is named by a tool rule of agent '" + agent.id()
                    + "'; change the rules (PATCH /v1/agents/" + agent.id() + " with tool_rules) first.");
        }
        List<String> tools = new ArrayList<>(d.tools());
        tools.remove(name);
        api.runtime.changeTools(agent.userId(), agent.id(), tools);
        Api.json(res, api.agentState(agent));
    }

    private static List<String> ruleNames(ToolRule rule) {
        return dev.engram.agents.ToolRules.toJson(rule).findValuesAsString("tool_name");
    }

    /** Adds or removes the agent's {@code requires_approval} rule for a tool. */
    private void approval(Agent agent, ServerRequest req, ServerResponse res) {
        String name = req.path().pathParameters().get("tool_name");
        boolean requires;
        if (Query.string(req, "requires_approval").isPresent()) {
            requires = Query.bool(req, "requires_approval", true);
        } else {
            Body body = Api.body(req);
            requires = body.bool("requires_approval").orElseThrow(() -> ApiException.invalid("missing", "Field required",
                    "query", "requires_approval"));
        }
        if (!agent.definition().tools().contains(name)) {
            throw ApiException.notFound("Tool '" + name + "' is not attached to agent '" + agent.id() + "'.");
        }
        api.runtime.modify(agent.userId(), agent.id(), d -> {
            List<ToolRule> rules = new ArrayList<>(d.toolRules());
            rules.removeIf(r -> r instanceof ToolRule.RequiresApproval a && a.tool().equals(name));
            if (requires) {
                rules.add(new ToolRule.RequiresApproval(name));
            }
            return d.toBuilder().toolRules(rules).build();
        });
        Api.json(res, api.agentState(agent));
    }

}

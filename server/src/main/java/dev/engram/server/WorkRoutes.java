package dev.engram.server;

import static io.helidon.http.Method.GET;

import dev.engram.agents.Agent;
import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.TodoItem;
import dev.engram.memory.WorkState;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /v1/agents/{agent_id}/work-state}: Engram's own route (Letta has none) for what an agent is working on, as
 * its prompt shows it: its todos, its current goal with that goal's latest checkpoints and decisions, and its open goals.
 * A route of its own rather than a field of Letta's agent object: Letta's clients never read it, and listing agents
 * does not pay for it.
 */
final class WorkRoutes {
    private final Api api;

    WorkRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return List.of(Route.agent(api, GET, "/v1/agents/{agent_id}/work-state", this::show));
    }

    private void show(Agent agent, ServerRequest req, ServerResponse res) {
        WorkState state;
        try {
            state = api.store.work().snapshot(agent.definition().memoryScope());
        } catch (UnsupportedOperationException e) {
            state = WorkState.EMPTY; // a backend without work state: an agent with none
        }
        Api.json(res, view(state));
    }

    static ObjectNode view(WorkState state) {
        ObjectNode out = Body.JSON.createObjectNode();
        ArrayNode todos = out.putArray("todos");
        for (TodoItem t : state.todos()) {
            todos.addObject().put("content", t.content()).put("status", t.status().wire());
        }
        if (state.currentGoal().isPresent()) {
            out.set("current_goal", goal(state.currentGoal().get()));
        } else {
            out.putNull("current_goal");
        }
        ArrayNode checkpoints = out.putArray("checkpoints");
        state.checkpoints().forEach(e -> checkpoints.add(entry(e)));
        ArrayNode decisions = out.putArray("decisions");
        state.decisions().forEach(e -> decisions.add(entry(e)));
        ArrayNode open = out.putArray("open_goals");
        state.openGoals().forEach(g -> open.add(goal(g)));
        return out;
    }

    private static ObjectNode goal(Goal g) {
        return Body.JSON.createObjectNode().put("id", g.id()).put("title", g.title()).put("description", g.description())
                .put("current", g.current()).put("created_at", g.createdAt().toString());
    }

    private static ObjectNode entry(GoalEntry e) {
        return Body.JSON.createObjectNode().put("id", e.id()).put("text", e.text()).put("rationale", e.rationale())
                .put("created_at", e.createdAt().toString());
    }
}

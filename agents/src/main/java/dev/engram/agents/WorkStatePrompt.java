package dev.engram.agents;

import dev.engram.framework.ToolDefinition;
import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.memory.WorkState;
import dev.engram.tools.BuiltinTools;
import java.util.List;
import java.util.Set;

/**
 * The {@code <work_state>} section of an agent's system prompt: its current goal with the goal's latest checkpoints and
 * decisions, its other open goals, and its task list. Nothing when the agent has no todos and no goals, when it has
 * none of the tools that write them, or when its store keeps no work state.
 */
final class WorkStatePrompt {
    /** The tools whose agent sees the section: those that write the work state. */
    private static final Set<String> WORK_TOOLS = Set.copyOf(BuiltinTools.WORK_STATE_EDITS);
    /** The other open goals listed by title at most. */
    static final int OTHER_GOALS = 10;

    private WorkStatePrompt() {
    }

    /**
     * The section for an agent offered {@code tools}: read only when one of them is a work-state tool (the agent can act
     * on what it shows), so that an agent without them pays no store read per step.
     */
    static String render(MemoryStore store, Scope scope, List<ToolDefinition> tools) {
        if (tools.stream().noneMatch(t -> WORK_TOOLS.contains(t.name()))) {
            return "";
        }
        WorkState state;
        try {
            state = store.work().snapshot(scope);
        } catch (UnsupportedOperationException e) {
            return ""; // a backend without work state: nothing to show
        }
        return render(state);
    }

    static String render(WorkState state) {
        if (state.isEmpty() && state.openGoals().isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("<work_state>\n");
        if (state.currentGoal().isPresent()) {
            Goal g = state.currentGoal().get();
            out.append("Your current goal (").append(g.id()).append("): ").append(g.title()).append('\n');
            if (!g.description().isEmpty()) {
                out.append(g.description()).append('\n');
            }
            if (!state.checkpoints().isEmpty()) {
                out.append("Latest checkpoints, newest first:\n");
                state.checkpoints().forEach(e -> out.append("- ").append(e.text()).append('\n'));
            }
            if (!state.decisions().isEmpty()) {
                out.append("Decisions taken, newest first:\n");
                for (GoalEntry e : state.decisions()) {
                    out.append("- ").append(e.text()).append(e.rationale().isEmpty() ? "" : " (because " + e.rationale() + ")")
                            .append('\n');
                }
            }
        } else {
            out.append("You have no current goal.\n");
        }
        List<Goal> others = state.openGoals().stream().filter(g -> !g.current()).toList();
        if (!others.isEmpty()) {
            out.append("Other open goals (switch_goal to resume one):\n");
            others.stream().skip(Math.max(0, others.size() - OTHER_GOALS))
                    .forEach(g -> out.append("- ").append(g.id()).append(": ").append(g.title()).append('\n'));
        }
        if (!state.todos().isEmpty()) {
            long open = state.openTodos().size();
            out.append("Your todos (").append(open).append(" open of ").append(state.todos().size())
                    .append("; write_todos replaces the list):\n");
            for (TodoItem t : state.todos()) {
                out.append("- [").append(t.status().wire()).append("] ").append(t.content()).append('\n');
            }
        }
        return out.append("</work_state>\n\n").toString();
    }
}

package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.ToolOutput;
import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.memory.TodoStatus;
import dev.engram.memory.WorkStateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The work-state tools over {@link WorkStateStore}: {@code write_todos} (the agent's task list, replaced whole) and the
 * goal tools {@code create_goal}, {@code switch_goal}, {@code complete_goal}, {@code create_checkpoint} and
 * {@code record_decision}. Each changes only the calling agent's own state, which its next prompt shows, so each answers
 * as a memory edit ({@link ToolEffect#MEMORY_EDITED}).
 */
final class WorkTools {
    static final String WRITE_TODOS = "write_todos";
    static final String CREATE_GOAL = "create_goal";
    static final String SWITCH_GOAL = "switch_goal";
    static final String COMPLETE_GOAL = "complete_goal";
    static final String CREATE_CHECKPOINT = "create_checkpoint";
    static final String RECORD_DECISION = "record_decision";

    private WorkTools() {
    }

    record Todo(@JsonPropertyDescription("What is to be done, in a line.") String content,
            @JsonPropertyDescription("pending, in_progress or completed.") String status) {
    }

    record TodosInput(@JsonPropertyDescription("The whole task list, in order; it replaces the one you had. An empty list "
            + "clears it.") List<Todo> todos) {
    }

    record CreateGoalInput(@JsonPropertyDescription("The goal, in a line.") String title,
            @JsonPropertyDescription("More about it: scope, constraints, what done looks like.") Optional<String> description) {
    }

    record SwitchGoalInput(@JsonPropertyDescription("The id of one of your open goals, e.g. goal-0190...") String goalId) {
    }

    record CompleteGoalInput(@JsonPropertyDescription("The goal's id; default your current goal.") Optional<String> goalId,
            @JsonPropertyDescription("How it ended: what was achieved or why it was dropped.") Optional<String> outcome) {
    }

    record CheckpointInput(@JsonPropertyDescription("The progress made and where to pick up, for your future self.")
            String progress) {
    }

    record DecisionInput(@JsonPropertyDescription("What you decided.") String decision,
            @JsonPropertyDescription("Why: the alternatives and what tipped it.") Optional<String> rationale) {
    }

    static List<AiTool<?, ?>> all(MemoryStore store) {
        WorkStateStore work = store.work();
        return List.of(
                tool(WRITE_TODOS, "Write your task list for multi-step work: the whole list each time, each todo with "
                        + "its status (pending, in_progress, completed), keeping one in_progress. It is kept across turns "
                        + "and shown in your prompt while any todo is open. Returns the list as saved.",
                        TodosInput.class, (in, scope) -> {
                            List<TodoItem> items = new ArrayList<>();
                            for (Todo t : in.todos()) {
                                if (t == null) {
                                    throw new ToolException("todos contains null; give each todo a content and a status.");
                                }
                                items.add(new TodoItem(t.content() == null ? "" : t.content().strip(), TodoStatus.fromWire(t.status())));
                            }
                            List<TodoItem> saved = work.writeTodos(scope, items);
                            return saved.isEmpty() ? "Task list cleared." : "Task list saved (" + saved.size() + " todos):\n"
                                    + saved.stream().map(WorkTools::line).collect(Collectors.joining("\n"));
                        }),
                tool(CREATE_GOAL, "Start working towards a goal that spans turns; it becomes your current goal, shown in "
                        + "your prompt with its latest checkpoints and decisions. Returns its id.",
                        CreateGoalInput.class, (in, scope) -> {
                            Goal g = work.createGoal(scope, in.title(), in.description().orElse(""));
                            return "Created goal " + g.id() + " \"" + g.title() + "\"; it is now your current goal.";
                        }),
                tool(SWITCH_GOAL, "Make another of your open goals the current one (your prompt lists them).",
                        SwitchGoalInput.class, (in, scope) -> {
                            Goal g = work.switchGoal(scope, in.goalId());
                            return "Your current goal is now " + g.id() + " \"" + g.title() + "\".";
                        }),
                tool(COMPLETE_GOAL, "Mark a goal completed (default: your current goal), with its outcome; a completed "
                        + "goal leaves your prompt.", CompleteGoalInput.class, (in, scope) -> {
                            String id = in.goalId().orElseGet(() -> work.currentGoal(scope).map(Goal::id).orElseThrow(
                                    () -> new ToolException("You have no current goal; give goal_id.")));
                            Goal g = work.completeGoal(scope, id, in.outcome().orElse(""));
                            return "Completed goal " + g.id() + " \"" + g.title() + "\"."
                                    + (work.currentGoal(scope).isEmpty() ? " You have no current goal now." : "");
                        }),
                tool(CREATE_CHECKPOINT, "Record progress on your current goal: what is done and where to pick up. The "
                        + "latest checkpoints stay in your prompt, so work can resume after your context is compacted.",
                        CheckpointInput.class, (in, scope) -> {
                            GoalEntry e = work.checkpoint(scope, in.progress());
                            return "Checkpoint " + e.id() + " recorded on goal " + e.goalId() + ".";
                        }),
                tool(RECORD_DECISION, "Record a decision on your current goal, and why, so that you do not reopen it "
                        + "later; recent decisions stay in your prompt.", DecisionInput.class, (in, scope) -> {
                            GoalEntry e = work.decide(scope, in.decision(), in.rationale().orElse(""));
                            return "Decision " + e.id() + " recorded on goal " + e.goalId() + ".";
                        }));
    }

    /** A todo as the tools and the prompt show it: {@code [in_progress] write the tests}. */
    static String line(TodoItem t) {
        return "[" + t.status().wire() + "] " + t.content();
    }

    /** What a work tool does with its input for the calling agent; returns the text the model reads. */
    interface Body<I> {
        String apply(I input, Scope scope);
    }

    private static <I> AiTool<I, ToolOutput> tool(String name, String description, Class<I> input, Body<I> body) {
        return new Tool<>(ToolInfo.of(name, description, SafetyTier.SIDE_EFFECTING), input, body);
    }

    /** A work tool: store refusals become messages for the model; success is a memory edit. */
    private record Tool<I>(ToolInfo info, Class<I> inputType, Body<I> body) implements AiTool<I, ToolOutput> {
        @Override
        public ToolOutput execute(I input, ToolContext context) {
            Scope scope = ToolScopes.of(context);
            try {
                return ToolOutput.of(body.apply(input, scope), ToolEffect.MEMORY_EDITED);
            } catch (MemoryException | IllegalArgumentException e) {
                throw new ToolException(e.getMessage());
            } catch (UnsupportedOperationException e) {
                throw new ToolException("Todos and goals are not available here: " + e.getMessage() + ".");
            }
        }
    }
}

package dev.engram.agents;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A rule about when an agent may call a tool: Letta's tool rules, with Letta's semantics. Rules are part
 * of an {@link AgentDefinition}; the agent enforces them by offering only the allowed tools each step
 * (and forcing a tool call through {@code tool_choice} where a rule says what must come next), and by
 * refusing a call that breaks a rule with an error result that names the tools allowed instead.
 *
 * <p>The rules look at the tools that ran <b>successfully</b> while the agent works on one message
 * (Letta's "step" is that whole response); a failed call does not count, so the model can retry it.
 * {@link ToolRules} reads and writes them in Letta's JSON shapes.
 *
 * <table>
 * <caption>Letta's rule kinds</caption>
 * <tr><th>Letta {@code type}</th><th>Engram</th><th>meaning</th></tr>
 * <tr><td>{@code run_first}</td><td>{@link Init}</td><td>the first call must be one of the init tools</td></tr>
 * <tr><td>{@code exit_loop}</td><td>{@link Terminal}</td><td>the turn ends after the tool ran</td></tr>
 * <tr><td>{@code continue_loop}</td><td>{@link Continue}</td><td>the agent always continues after it</td></tr>
 * <tr><td>{@code constrain_child_tools}</td><td>{@link Child}</td><td>right after it, one of the children runs</td></tr>
 * <tr><td>{@code parent_last_tool}</td><td>{@link Parent}</td><td>the children may run only right after it</td></tr>
 * <tr><td>{@code conditional}</td><td>{@link Conditional}</td><td>its output chooses the next tool</td></tr>
 * <tr><td>{@code max_count_per_step}</td><td>{@link MaxCountPerStep}</td><td>at most N calls per message</td></tr>
 * <tr><td>{@code required_before_exit}</td><td>{@link RequiredBeforeExit}</td><td>the turn cannot end before it ran</td></tr>
 * <tr><td>{@code requires_approval}</td><td>{@link RequiresApproval}</td><td>every call asks a human first</td></tr>
 * </table>
 */
public sealed interface ToolRule {
    /** The tool the rule is about. */
    String tool();

    /** Letta's {@code type} of this rule, e.g. {@code run_first}. */
    String type();

    /**
     * The first tool call of a turn must be one of the init tools. {@code args} are prefilled: they
     * override the model's arguments of the same name.
     */
    record Init(String tool, Map<String, Object> args) implements ToolRule {
        public Init {
            tool = name(tool, "an init rule");
            args = copy(args);
        }

        @Override
        public String type() {
            return "run_first";
        }
    }

    /** When the tool ran, the turn ends. */
    record Terminal(String tool) implements ToolRule {
        public Terminal {
            tool = name(tool, "a terminal rule");
        }

        @Override
        public String type() {
            return "exit_loop";
        }
    }

    /** When the tool ran, the agent takes another step, whether or not the call asked for a heartbeat. */
    record Continue(String tool) implements ToolRule {
        public Continue {
            tool = name(tool, "a continue rule");
        }

        @Override
        public String type() {
            return "continue_loop";
        }
    }

    /**
     * Right after the tool ran, only its children may be called, and the agent continues to call one;
     * {@code childArgs} prefills a child's arguments when it is called next.
     */
    record Child(String tool, List<String> children, Map<String, Map<String, Object>> childArgs) implements ToolRule {
        public Child {
            tool = name(tool, "a child rule");
            children = names(children, "the children of the child rule of '" + tool + "'");
            Map<String, Map<String, Object>> args = new LinkedHashMap<>();
            for (Map.Entry<String, Map<String, Object>> e : Objects.requireNonNull(childArgs, "childArgs").entrySet()) {
                if (!children.contains(e.getKey())) {
                    throw new IllegalArgumentException("the child rule of '" + tool + "' prefills arguments of '" + e.getKey()
                            + "', which is not one of its children " + children);
                }
                args.put(e.getKey(), copy(e.getValue()));
            }
            childArgs = Collections.unmodifiableMap(args);
        }

        @Override
        public String type() {
            return "constrain_child_tools";
        }
    }

    /**
     * The children may be called only right after the tool ran, and then only they may (the agent
     * continues to call one).
     */
    record Parent(String tool, List<String> children) implements ToolRule {
        public Parent {
            tool = name(tool, "a parent rule");
            children = names(children, "the children of the parent rule of '" + tool + "'");
        }

        @Override
        public String type() {
            return "parent_last_tool";
        }
    }

    /**
     * Right after the tool ran, its output chooses the next tool, and the agent continues: the output (or the {@code message}
     * field of a JSON object output) is looked up in {@code childOutputMapping}, comparing booleans
     * without regard to case ({@code True} matches {@code true}) and numbers by value. No match: the
     * {@code defaultChild}, if any, else any tool; with {@code requireOutputMapping}, an output that
     * matches no case makes the call fail with an error telling the model the cases.
     */
    record Conditional(String tool, Optional<String> defaultChild, Map<String, String> childOutputMapping,
            boolean requireOutputMapping) implements ToolRule {
        public Conditional {
            String what = "the conditional rule of '" + name(tool, "a conditional rule") + "'";
            Objects.requireNonNull(defaultChild, "defaultChild").ifPresent(c -> name(c, "the default child of " + what));
            if (Objects.requireNonNull(childOutputMapping, "childOutputMapping").isEmpty()) {
                throw new IllegalArgumentException(what + " needs at least one output case");
            }
            childOutputMapping.values().forEach(c -> name(c, "a child of " + what));
            childOutputMapping = Collections.unmodifiableMap(new LinkedHashMap<>(childOutputMapping));
        }

        @Override
        public String type() {
            return "conditional";
        }
    }

    /** The tool may run at most {@code maxCount} times while the agent works on one message. */
    record MaxCountPerStep(String tool, int maxCount) implements ToolRule {
        public MaxCountPerStep {
            tool = name(tool, "a max-count rule");
            if (maxCount < 1) {
                throw new IllegalArgumentException("the max-count rule of '" + tool + "' needs a limit of at least 1, got "
                        + maxCount);
            }
        }

        @Override
        public String type() {
            return "max_count_per_step";
        }
    }

    /** The turn cannot end until the tool ran: the agent is reminded and continues (up to its step cap). */
    record RequiredBeforeExit(String tool) implements ToolRule {
        public RequiredBeforeExit {
            tool = name(tool, "a required-before-exit rule");
        }

        @Override
        public String type() {
            return "required_before_exit";
        }
    }

    /** Every call of the tool asks the approval handler first, whatever the approval mode and tier. */
    record RequiresApproval(String tool) implements ToolRule {
        public RequiresApproval {
            tool = name(tool, "a requires-approval rule");
        }

        @Override
        public String type() {
            return "requires_approval";
        }
    }

    static Init init(String tool) {
        return new Init(tool, Map.of());
    }

    static Terminal terminal(String tool) {
        return new Terminal(tool);
    }

    static Continue continueAfter(String tool) {
        return new Continue(tool);
    }

    static Child child(String tool, String... children) {
        return new Child(tool, List.of(children), Map.of());
    }

    static Parent parent(String tool, String... children) {
        return new Parent(tool, List.of(children));
    }

    /** A conditional rule without a default child that does not require a match. */
    static Conditional conditional(String tool, Map<String, String> childOutputMapping) {
        return new Conditional(tool, Optional.empty(), childOutputMapping, false);
    }

    static MaxCountPerStep maxCountPerStep(String tool, int maxCount) {
        return new MaxCountPerStep(tool, maxCount);
    }

    static RequiredBeforeExit requiredBeforeExit(String tool) {
        return new RequiredBeforeExit(tool);
    }

    static RequiresApproval requiresApproval(String tool) {
        return new RequiresApproval(tool);
    }

    private static String name(String tool, String what) {
        if (tool == null || tool.isBlank()) {
            throw new IllegalArgumentException(what + " needs a tool name");
        }
        return tool;
    }

    private static List<String> names(List<String> tools, String what) {
        Objects.requireNonNull(tools, what);
        if (tools.isEmpty()) {
            throw new IllegalArgumentException(what + " must name at least one tool");
        }
        tools.forEach(t -> name(t, what));
        return List.copyOf(tools);
    }

    private static Map<String, Object> copy(Map<String, Object> args) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(args, "args")));
    }
}

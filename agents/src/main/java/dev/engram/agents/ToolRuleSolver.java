package dev.engram.agents;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Applies an agent's {@link ToolRule}s while it works on one message: which tools the next step may
 * call, whether a call is allowed, what it is prefilled with, and whether the turn may end. It sees
 * the tools that ran successfully in this turn ({@link #settle}) and the calls admitted in the current
 * step but not yet run ({@link #admit}). One solver per turn; not thread-safe.
 */
final class ToolRuleSolver {
    /**
     * What the next call may be.
     *
     * @param tools   the tools allowed, in the order offered
     * @param forced  whether a rule says a tool must be called next (init, child, parent, conditional)
     * @param reasons why tools were taken away, in words for the model
     */
    record Allowed(Set<String> tools, boolean forced, List<String> reasons) {
    }

    /** A call's admission: refused (with the error for the model), or admitted with prefilled arguments. */
    record Admission(Optional<String> refusal, Map<String, Object> prefill) {
    }

    private final List<ToolRule> rules;
    private final List<String> history = new ArrayList<>();
    private final List<String> pending = new ArrayList<>();
    private String lastOutput = "";

    ToolRuleSolver(List<ToolRule> rules) {
        this.rules = rules;
    }

    /** The tools the next call may use, out of {@code available}. */
    Allowed allowed(Set<String> available) {
        List<String> sequence = new ArrayList<>(history);
        sequence.addAll(pending);
        List<String> reasons = new ArrayList<>();
        if (sequence.isEmpty()) {
            Set<String> inits = new LinkedHashSet<>();
            rules.stream().filter(r -> r instanceof ToolRule.Init).forEach(r -> inits.add(r.tool()));
            if (!inits.isEmpty()) {
                inits.retainAll(available);
                reasons.add("the first tool call must be one of " + inits);
                return new Allowed(inits, true, reasons);
            }
        }
        String last = sequence.isEmpty() ? "" : sequence.getLast();
        boolean outputKnown = pending.isEmpty();
        Set<String> allowed = new LinkedHashSet<>(available);
        boolean forced = false;
        for (ToolRule rule : rules) {
            switch (rule) {
                case ToolRule.Child c when c.tool().equals(last) -> {
                    allowed.retainAll(c.children());
                    forced = true;
                    reasons.add("after " + last + " only " + c.children() + " may run");
                }
                case ToolRule.Parent p -> {
                    if (p.tool().equals(last)) {
                        allowed.retainAll(p.children());
                        forced = true;
                        reasons.add("after " + last + " only " + p.children() + " may run");
                    } else if (allowed.removeAll(p.children())) {
                        reasons.add(p.children() + " may run only right after " + p.tool());
                    }
                }
                case ToolRule.Conditional c when c.tool().equals(last) && outputKnown -> {
                    Optional<String> next = match(c, lastOutput).or(c::defaultChild);
                    if (next.isPresent()) {
                        allowed.retainAll(Set.of(next.get()));
                        forced = true;
                        reasons.add("the result of " + last + " chose " + next.get() + " to run next");
                    }
                }
                case ToolRule.MaxCountPerStep m -> {
                    long count = sequence.stream().filter(m.tool()::equals).count();
                    if (count >= m.maxCount() && allowed.remove(m.tool())) {
                        reasons.add(m.tool() + " may run at most " + m.maxCount() + " time(s) per message and already ran "
                                + count + " time(s)");
                    }
                }
                default -> {
                }
            }
        }
        return new Allowed(allowed, forced, reasons);
    }

    /**
     * Admits a call of {@code tool} in the current step, or refuses it saying what is allowed instead. A
     * tool outside {@code available} is admitted: the tool pipeline refuses it in its own words.
     */
    Admission admit(String tool, Set<String> available) {
        for (String earlier : pending) {
            if (conditional(earlier).isPresent()) {
                return new Admission(Optional.of("Tool rules: '" + tool + "' was not run because '" + earlier
                        + "', called before it in the same step, has a conditional rule: its result chooses the tool that "
                        + "may run next. Call the next tool in your next step, after reading that result."), Map.of());
            }
        }
        Allowed allowed = allowed(available);
        // The rules speak about the tools the agent is offered; any other call is the pipeline's to answer
        // (unknown tool, denied by policy).
        if (available.contains(tool) && !allowed.tools().contains(tool)) {
            String instead = allowed.tools().isEmpty() ? "No tool may run now; answer without calling a tool."
                    : "Allowed now: " + String.join(", ", allowed.tools()) + ".";
            return new Admission(Optional.of("Tool rules do not allow '" + tool + "' now ("
                    + String.join("; ", allowed.reasons()) + "), so it did not run. " + instead), Map.of());
        }
        Map<String, Object> prefill = prefill(tool);
        pending.add(tool);
        return new Admission(Optional.empty(), prefill);
    }

    private Map<String, Object> prefill(String tool) {
        List<String> sequence = new ArrayList<>(history);
        sequence.addAll(pending);
        for (ToolRule rule : rules) {
            if (rule instanceof ToolRule.Init i && sequence.isEmpty() && i.tool().equals(tool) && !i.args().isEmpty()) {
                return i.args();
            }
            if (rule instanceof ToolRule.Child c && !sequence.isEmpty() && c.tool().equals(sequence.getLast())
                    && c.childArgs().containsKey(tool)) {
                return c.childArgs().get(tool);
            }
        }
        return Map.of();
    }

    /**
     * Records how an admitted call ended, in call order. A successful call counts for the rules from now
     * on; a failed one does not. Returns the error the call's result must become instead, when its output
     * breaks a conditional rule that requires a match.
     */
    Optional<String> settle(String tool, boolean success, String output) {
        pending.remove(tool);
        if (!success) {
            return Optional.empty();
        }
        Optional<ToolRule.Conditional> conditional = conditional(tool);
        if (conditional.isPresent() && conditional.get().requireOutputMapping() && match(conditional.get(), output).isEmpty()) {
            return Optional.of("Tool rules: the result of '" + tool + "' must be one of "
                    + conditional.get().childOutputMapping().keySet() + " to choose the next tool, but it was: "
                    + abbreviate(output) + ". Call " + tool + " again.");
        }
        history.add(tool);
        lastOutput = output;
        return Optional.empty();
    }

    /** Forgets admitted calls that were never settled (the step was cut short). */
    void endStep() {
        pending.clear();
    }

    /** Whether a successful call of {@code tool} ends the turn. */
    boolean terminal(String tool) {
        return rules.stream().anyMatch(r -> r instanceof ToolRule.Terminal && r.tool().equals(tool));
    }

    /**
     * Whether a successful call of {@code tool} makes the agent continue: a continue rule, or (as in
     * Letta) a child, parent or conditional rule, which say what must run next.
     */
    boolean continues(String tool) {
        return rules.stream().anyMatch(r -> r.tool().equals(tool) && (r instanceof ToolRule.Continue
                || r instanceof ToolRule.Child || r instanceof ToolRule.Parent || r instanceof ToolRule.Conditional));
    }

    /** The required-before-exit tools that have not run successfully in this turn. */
    List<String> missingBeforeExit() {
        return rules.stream().filter(r -> r instanceof ToolRule.RequiredBeforeExit).map(ToolRule::tool)
                .filter(t -> !history.contains(t)).distinct().toList();
    }

    /** Whether some rule depends on the order of calls, so that calls are best made one per step. */
    boolean ordered() {
        return rules.stream().anyMatch(r -> r instanceof ToolRule.Init || r instanceof ToolRule.Child
                || r instanceof ToolRule.Parent || r instanceof ToolRule.Conditional);
    }

    private Optional<ToolRule.Conditional> conditional(String tool) {
        return rules.stream().filter(r -> r instanceof ToolRule.Conditional && r.tool().equals(tool))
                .map(ToolRule.Conditional.class::cast).findFirst();
    }

    /**
     * The child a conditional rule maps {@code output} to. The value compared is the output, or the
     * {@code message} field of a JSON object output (as Letta wraps returns), or the text of a JSON
     * string; booleans match without regard to case, numbers by value, anything else exactly.
     */
    static Optional<String> match(ToolRule.Conditional rule, String output) {
        String value = outputValue(output);
        for (Map.Entry<String, String> e : rule.childOutputMapping().entrySet()) {
            String key = e.getKey().strip();
            if (key.equals(value) || (isBoolean(key) && key.equalsIgnoreCase(value)) || sameNumber(key, value)) {
                return Optional.of(e.getValue());
            }
        }
        return Optional.empty();
    }

    private static String outputValue(String output) {
        String text = output.strip();
        try {
            JsonNode node = Heartbeats.JSON.readTree(text);
            if (node.isObject() && node.has("message")) {
                node = node.get("message");
            }
            if (node.isValueNode()) {
                return node.asString("").strip();
            }
        } catch (JacksonException e) {
            // plain text
        }
        return text;
    }

    private static boolean isBoolean(String s) {
        return s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false");
    }

    private static boolean sameNumber(String a, String b) {
        try {
            return new BigDecimal(a).compareTo(new BigDecimal(b)) == 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String abbreviate(String s) {
        String one = s.strip().replaceAll("\\s+", " ");
        return one.length() <= 200 ? "\"" + one + "\"" : "\"" + one.substring(0, 200) + "...\"";
    }

    /** The rules in words, for the system prompt; empty when there are none the model needs to know. */
    static String describe(List<ToolRule> rules) {
        StringBuilder sb = new StringBuilder();
        for (ToolRule r : rules) {
            String line = switch (r) {
                case ToolRule.Init i -> "Your first tool call must be " + i.tool() + ".";
                case ToolRule.Terminal t -> "Calling " + t.tool() + " ends your turn.";
                case ToolRule.Continue c -> "After " + c.tool() + " you always continue.";
                case ToolRule.Child c -> "After " + c.tool() + ", call one of: " + String.join(", ", c.children()) + ".";
                case ToolRule.Parent p -> String.join(", ", p.children()) + " can only be called right after " + p.tool() + ".";
                case ToolRule.Conditional c -> "The result of " + c.tool() + " chooses the next tool: " + cases(c) + ".";
                case ToolRule.MaxCountPerStep m -> m.tool() + " may be called at most " + m.maxCount()
                        + " time(s) per message.";
                case ToolRule.RequiredBeforeExit q -> "You must call " + q.tool() + " before you end your turn.";
                case ToolRule.RequiresApproval a -> "Calls of " + a.tool() + " wait for a human's approval.";
            };
            sb.append("- ").append(line).append('\n');
        }
        return sb.isEmpty() ? "" : "<tool_rules>\nThe runtime enforces these rules about your tools:\n" + sb + "</tool_rules>\n\n";
    }

    private static String cases(ToolRule.Conditional c) {
        List<String> cases = new ArrayList<>();
        c.childOutputMapping().forEach((k, v) -> cases.add(k + " -> " + v));
        c.defaultChild().ifPresent(d -> cases.add("otherwise " + d));
        return String.join(", ", cases);
    }
}

package dev.engram.framework;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * A rule that overrides the {@link ApprovalMode} for matching calls. A rule matches a call when the
 * tool name matches its glob and every argument condition holds: the argument at the JSON Pointer
 * (e.g. {@code /command}) is a scalar whose text matches the glob.
 *
 * <pre>{@code
 * ApprovalRule.autoApprove("shell_exec").whenArgument("/command", "git status*");
 * ApprovalRule.alwaysAsk("file_delete");
 * }</pre>
 *
 * <p>An always-ask rule wins over an auto-approve rule and over {@link ApprovalMode#YOLO}.
 */
public final class ApprovalRule {
    /** What a matching rule does. */
    public enum Action {
        /** Run without asking (ignored in {@link ApprovalMode#ASK}). */
        AUTO_APPROVE,
        /** Always ask, whatever the mode and tier. */
        ALWAYS_ASK
    }

    private final Action action;
    private final String toolGlob;
    private final Pattern tool;
    private final Map<String, String> argumentGlobs;
    private final Map<String, Pattern> arguments;

    private ApprovalRule(Action action, String toolGlob, Map<String, String> argumentGlobs) {
        this.action = action;
        this.toolGlob = toolGlob;
        this.tool = Globs.compile(toolGlob);
        this.argumentGlobs = Map.copyOf(argumentGlobs);
        Map<String, Pattern> compiled = new LinkedHashMap<>();
        argumentGlobs.forEach((pointer, glob) -> compiled.put(pointer, Globs.compile(glob)));
        this.arguments = compiled;
    }

    /** Calls to tools matching {@code toolGlob} run without asking (in {@link ApprovalMode#AUTO}). */
    public static ApprovalRule autoApprove(String toolGlob) {
        return new ApprovalRule(Action.AUTO_APPROVE, requireGlob(toolGlob), Map.of());
    }

    /** Calls to tools matching {@code toolGlob} always ask, even in {@link ApprovalMode#YOLO}. */
    public static ApprovalRule alwaysAsk(String toolGlob) {
        return new ApprovalRule(Action.ALWAYS_ASK, requireGlob(toolGlob), Map.of());
    }

    /**
     * A copy of this rule that also requires the argument at {@code jsonPointer} to match {@code glob}.
     *
     * @throws IllegalArgumentException if the pointer does not start with {@code /}
     */
    public ApprovalRule whenArgument(String jsonPointer, String glob) {
        Objects.requireNonNull(jsonPointer, "jsonPointer");
        if (!jsonPointer.startsWith("/")) {
            throw new IllegalArgumentException("argument conditions take a JSON Pointer such as \"/command\", got \""
                    + jsonPointer + "\"");
        }
        Map<String, String> next = new LinkedHashMap<>(argumentGlobs);
        next.put(jsonPointer, requireGlob(glob));
        return new ApprovalRule(action, toolGlob, next);
    }

    public Action action() {
        return action;
    }

    public String toolGlob() {
        return toolGlob;
    }

    /** Argument conditions, JSON Pointer to glob. */
    public Map<String, String> argumentGlobs() {
        return argumentGlobs;
    }

    /** Whether some call of the tool could match (its name matches; argument conditions may or may not hold). */
    boolean mayMatch(String toolName) {
        return tool.matcher(toolName).matches();
    }

    /** Whether every call of the tool matches (its name matches and there are no argument conditions). */
    boolean matchesEveryCall(String toolName) {
        return arguments.isEmpty() && mayMatch(toolName);
    }

    boolean matches(String toolName, JsonNode args) {
        if (!tool.matcher(toolName).matches()) {
            return false;
        }
        for (Map.Entry<String, Pattern> e : arguments.entrySet()) {
            JsonNode value = args.at(e.getKey());
            if (value.isMissingNode() || value.isContainer() || value.isNull()) {
                return false;
            }
            if (!e.getValue().matcher(value.asString()).matches()) {
                return false;
            }
        }
        return true;
    }

    private static String requireGlob(String glob) {
        if (glob == null || glob.isEmpty()) {
            throw new IllegalArgumentException("an approval rule needs a non-empty glob");
        }
        return glob;
    }

    @Override
    public String toString() {
        return "ApprovalRule[" + action + " " + toolGlob + (argumentGlobs.isEmpty() ? "" : " " + argumentGlobs) + "]";
    }
}

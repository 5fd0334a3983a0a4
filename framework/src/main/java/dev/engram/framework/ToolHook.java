package dev.engram.framework;

import java.util.Objects;
import java.util.Optional;

/**
 * Your code around every tool call of an executor: before a call it may let the call run, deny it with a reason the
 * model reads, rewrite its arguments, or add a note for the model; after the call it may rewrite the result.
 *
 * <pre>{@code
 * ToolHook noSecrets = new ToolHook() {
 *     public Before before(ToolCall call, ToolContext context) {
 *         return call.arguments().contains(".env") ? Before.deny("reading .env files is not allowed here") : Before.allow();
 *     }
 * };
 * ToolExecutor.builder(registry).hook(noSecrets).build();     // or AgentRuntime.Builder.toolHook(noSecrets)
 * }</pre>
 *
 * <p>Hooks run inside the pipeline ({@link ToolExecutor}), in the order they were added, for calls of a known tool the
 * policy permits: the {@code before} hooks after the policy and before the arguments are parsed and validated (so
 * rewritten arguments are validated, and approval is asked for the call as rewritten); the {@code after} hooks on the
 * call's result, whatever its status, except for a call a hook denied. Each hook sees what the hooks before it made of
 * the call or the result. Their time counts in the call's {@link ToolResult#duration()}.
 *
 * <p>A hook that throws never crashes the turn: the call gets an error result (a {@link ToolException}'s message is
 * given to the model, as a tool's is; any other exception is logged and the model reads that a hook failed). A
 * {@code before} hook that throws stops the call before it runs; an {@code after} hook that throws turns the result
 * into an error, keeping what the call did ({@link ToolResult#effects()}). Calls of read-only tools may run
 * concurrently, so a hook must be thread-safe.
 */
public interface ToolHook {

    /**
     * Decides about a call before it runs. Default: {@link Before#allow()}.
     *
     * @param call    the call as the model made it, with the arguments as the hooks before this one left them
     * @param context the call's context (its {@link ToolContext#callId()} is set)
     */
    default Before before(ToolCall call, ToolContext context) {
        return Before.allow();
    }

    /**
     * Sees, and may replace, a call's result. Default: the result unchanged. A replacement must answer the same call
     * (the same {@link ToolResult#callId()} and {@link ToolResult#toolName()}); derive it with
     * {@link ToolResult#withContent}, {@link ToolResult#withMetadata} or {@link ToolResult#asError}. Rewritten content
     * is cut to the executor's output budget.
     *
     * @param call   the call as it ran (with rewritten arguments, if a hook rewrote them)
     * @param result the result so far
     */
    default ToolResult after(ToolCall call, ToolResult result, ToolContext context) {
        return result;
    }

    /**
     * What a {@code before} hook decided: run the call (perhaps with other arguments, perhaps with a note for the
     * model), or deny it with a reason.
     */
    final class Before {
        private static final Before ALLOW = new Before(null, null, null);

        private final String denial;
        private final String arguments;
        private final String context;

        private Before(String denial, String arguments, String context) {
            this.denial = denial;
            this.arguments = arguments;
            this.context = context;
        }

        /** The call runs as it is. */
        public static Before allow() {
            return ALLOW;
        }

        /**
         * The call does not run; the model reads that it was blocked, and why.
         *
         * @throws IllegalArgumentException if the reason is blank: the model needs it to change course
         */
        public static Before deny(String reason) {
            return new Before(requireText(reason, "a denial's reason"), null, null);
        }

        /**
         * The call runs with these arguments (a JSON object, as the model would send them) in place of the ones it
         * has; they are then parsed and validated as the model's are.
         */
        public static Before rewrite(String argumentsJson) {
            return new Before(null, Objects.requireNonNull(argumentsJson, "arguments must not be null"), null);
        }

        /**
         * The call runs as it is, and {@code note} is added to its result for the model: after the tool's output, on
         * a line of its own (notes of several hooks in their order). It is added whatever the call's status, and it
         * is not counted against the output budget of the tool's output.
         */
        public static Before addContext(String note) {
            return new Before(null, null, requireText(note, "a context note"));
        }

        /**
         * This decision with a note for the model as well ({@link #addContext}).
         *
         * @throws IllegalStateException on a denial, whose reason is what the model reads
         */
        public Before withContext(String note) {
            if (denial != null) {
                throw new IllegalStateException("a denied call does not run, so it has no result to add context to; "
                        + "put what the model should know in the denial's reason");
            }
            return new Before(null, arguments, requireText(note, "a context note"));
        }

        /** The reason the call was denied, if it was. */
        public Optional<String> denial() {
            return Optional.ofNullable(denial);
        }

        /** The arguments the call runs with instead of its own, if the hook rewrote them. */
        public Optional<String> arguments() {
            return Optional.ofNullable(arguments);
        }

        /** The note added to the result for the model, if any. */
        public Optional<String> context() {
            return Optional.ofNullable(context);
        }

        @Override
        public String toString() {
            return denial != null ? "Before[deny: " + denial + "]"
                    : "Before[" + (arguments == null ? "allow" : "rewrite: " + arguments)
                    + (context == null ? "" : ", context: " + context) + "]";
        }

        private static String requireText(String text, String what) {
            if (text == null || text.isBlank()) {
                throw new IllegalArgumentException(what + " must not be null or blank");
            }
            return text;
        }
    }
}

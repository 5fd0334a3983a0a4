package dev.engram.framework;

import java.time.Duration;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * The untyped face every tool has in the {@link ToolRegistry}: a name, a description, a JSON Schema
 * for its arguments, and a function from argument JSON to output text.
 *
 * <p>Typed tools ({@link AiTool}) and {@code @Tool} methods are wrapped into one; tools discovered at
 * run time (MCP servers, plugins) implement it directly. Call tools through a {@link ToolExecutor},
 * which validates the arguments against {@link #parametersSchema()} before {@link #execute} runs,
 * and applies policy, approval, timeout and truncation.
 */
public interface DynamicTool {
    /** The name the model calls; must match {@code ^[a-zA-Z0-9_-]{1,64}$}. */
    String name();

    /** What the tool does, when to use it, and what it returns, written for a model. */
    String description();

    /**
     * The JSON Schema (an {@code "type": "object"} schema, fully inlined: no {@code $ref}) of the
     * arguments. Callers must not modify the returned node.
     */
    ObjectNode parametersSchema();

    /** Defaults to {@link SafetyTier#SIDE_EFFECTING}. */
    default SafetyTier safetyTier() {
        return SafetyTier.SIDE_EFFECTING;
    }

    /**
     * Whether every call needs approval, whatever the {@link ApprovalMode} (even {@link ApprovalMode#YOLO}), the
     * auto-approve rules and the approvals remembered for a session: for tools that run code nobody reviewed, such
     * as an imported agent file's Python tools. Defaults to {@code false}.
     */
    default boolean alwaysNeedsApproval() {
        return false;
    }

    /**
     * Whether the pipeline runs this tool on the caller's own thread instead of handing each call to a thread of its
     * own: for tools that are cheap and trusted, that never wait on anything but the memory store (a block edit or
     * view). Such a call is not stopped at its {@link #timeout()}, nor interrupted by a cancel; it finishes, and the
     * hand-off it saves costs more than the call itself. A tool that may block (the network, a process, a model,
     * another agent, user code) keeps the default, {@code false}: its own thread, its timeout, its interruption.
     */
    default boolean runsInline() {
        return false;
    }

    /** Defaults to 30 seconds. */
    default Duration timeout() {
        return Duration.ofSeconds(30);
    }

    /** Defaults to {@link Truncation#KEEP_HEAD}. */
    default Truncation truncation() {
        return Truncation.KEEP_HEAD;
    }

    /**
     * Runs the tool on arguments that have been validated against the schema, and returns the text
     * the model will see. Throw {@link ToolException} to report a failure to the model.
     */
    String execute(String argumentsJson, ToolContext context) throws Exception;

    /**
     * Runs the tool as {@link #execute} does and says what the call did: the pipeline calls this. The default is
     * {@link #execute}'s text with no {@link ToolEffect}s (a {@code null} text is {@code "OK"}); a tool whose calls
     * deliver a message to the user, edit memory or are answered by another agent overrides it.
     */
    default ToolOutput run(String argumentsJson, ToolContext context) throws Exception {
        String text = execute(argumentsJson, context);
        return ToolOutput.of(text == null ? "OK" : text);
    }

    /**
     * The argument whose text the user reads when a call delivers a message to the user ({@link ToolEffect#MESSAGE_TO_USER}),
     * like Letta's {@code assistant_message_tool_kwarg}; empty (the default) for tools that never do. A stream shows
     * it while the model writes it; whether it reached the user only the call's result says.
     */
    default Optional<String> userMessageArgument() {
        return Optional.empty();
    }

    /** What the call will do, for a human asked to approve it; defaults to none. */
    default Optional<String> approvalPreview(String argumentsJson, ToolContext context) throws Exception {
        return Optional.empty();
    }

    /**
     * What an approval "for the session" of this call covers: empty (the default) for every call of the
     * tool; a tool whose calls differ in risk narrows it (a shell: the exact command), so approving one
     * call for the session approves only calls with the same scope.
     */
    default Optional<String> approvalScope(String argumentsJson) throws Exception {
        return Optional.empty();
    }

    /**
     * This tool with another timeout; everything else (schema, tier, truncation, approval preview, whether it runs
     * inline, and the pipeline's parsed-arguments fast path) is forwarded unchanged ({@link ForwardingTool}). A tool
     * that runs inline is not stopped at a timeout, this one either.
     *
     * @throws IllegalArgumentException if the timeout is not positive
     */
    default DynamicTool withTimeout(Duration timeout) {
        return RetimedTool.of(this, timeout);
    }

    /**
     * Wraps a typed tool, generating its schema from the input type.
     *
     * @throws ToolDefinitionException if the name, description, timeout or input type is not usable
     */
    static DynamicTool from(AiTool<?, ?> tool) {
        return TypedTool.wrap(tool);
    }

    /**
     * {@link #from}, except that the schema is generated when first asked for (by the registry of an agent that is
     * given the tool, or a listing of tools) rather than here: for tools whose schemas a test of their own checks, such
     * as the built-ins, so that a runtime that builds dozens of them (a server's start) pays for the schemas of none
     * until they are used. The name, description, safety tier, timeout and the shape of the input type are checked
     * here as {@link #from} checks them; a schema that cannot be generated throws {@link ToolDefinitionException} at
     * its first use instead. Tools a user gives should use {@link #from}, so that their mistakes surface at once.
     *
     * @throws ToolDefinitionException if the name, description, timeout or input type is not usable
     */
    static DynamicTool deferred(AiTool<?, ?> tool) {
        return TypedTool.deferred(tool);
    }
}

package dev.engram.framework;

import java.time.Duration;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool that forwards every call to another, {@link #delegate()}: the base of a decorator, which overrides only what
 * it changes (a timeout, a limit on the output) and keeps everything else the wrapped tool says of itself (its tier,
 * whether it runs inline, its approval preview, the argument a user reads). Every method of {@link DynamicTool} but
 * {@link DynamicTool#withTimeout} is forwarded here, so a method added to it is forwarded by every decorator at once.
 */
public interface ForwardingTool extends DynamicTool {
    /** The tool every call not overridden goes to. */
    DynamicTool delegate();

    @Override
    default String name() {
        return delegate().name();
    }

    @Override
    default String description() {
        return delegate().description();
    }

    @Override
    default ObjectNode parametersSchema() {
        return delegate().parametersSchema();
    }

    @Override
    default SafetyTier safetyTier() {
        return delegate().safetyTier();
    }

    @Override
    default boolean alwaysNeedsApproval() {
        return delegate().alwaysNeedsApproval();
    }

    @Override
    default boolean runsInline() {
        return delegate().runsInline();
    }

    @Override
    default Duration timeout() {
        return delegate().timeout();
    }

    @Override
    default Truncation truncation() {
        return delegate().truncation();
    }

    @Override
    default String execute(String argumentsJson, ToolContext context) throws Exception {
        return delegate().execute(argumentsJson, context);
    }

    @Override
    default ToolOutput run(String argumentsJson, ToolContext context) throws Exception {
        return delegate().run(argumentsJson, context);
    }

    @Override
    default Optional<String> userMessageArgument() {
        return delegate().userMessageArgument();
    }

    @Override
    default Optional<String> approvalPreview(String argumentsJson, ToolContext context) throws Exception {
        return delegate().approvalPreview(argumentsJson, context);
    }

    @Override
    default Optional<String> approvalScope(String argumentsJson) throws Exception {
        return delegate().approvalScope(argumentsJson);
    }
}

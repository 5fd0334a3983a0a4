package dev.engram.framework;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A typed tool: its input is a record (or, for a tool with several operations, a sealed interface
 * whose permitted subclasses are records), its output any Jackson-serialisable value.
 *
 * <p>The input type is the single source of truth for the tool's JSON Schema: record components
 * become required properties (an {@code Optional} component is optional), {@code @JsonPropertyDescription}
 * gives a property its description, {@code @JsonClassDescription} a record (an operation) its
 * description. For a sealed input, each permitted record is one operation, named by its
 * {@code @JsonTypeName} or its simple name in snake_case ({@code ReadLines} becomes {@code read_lines}),
 * and the model sees one object with an {@code operation} enum plus the union of the operations' fields.
 *
 * <p>Register a tool with {@link ToolRegistry#register(AiTool)}; it is wrapped into a
 * {@link DynamicTool} and all calls go through the {@link ToolExecutor} pipeline, which validates the
 * arguments before {@link #execute} sees them.
 *
 * <pre>{@code
 * record Add(@JsonPropertyDescription("first addend") int a, @JsonPropertyDescription("second addend") int b) {}
 *
 * AiTool<Add, Integer> add = AiTool.of("add", "Adds two integers and returns the sum.", Add.class,
 *         SafetyTier.READ_ONLY, (in, ctx) -> in.a() + in.b());
 * }</pre>
 *
 * <p>A tool class states its fixed facts once, in a {@link ToolInfo}:
 * <pre>{@code
 * final class AddTool implements AiTool<Add, Integer> {
 *     private static final ToolInfo INFO = ToolInfo.of("add", "Adds two integers and returns the sum.", SafetyTier.READ_ONLY);
 *     public ToolInfo info() { return INFO; }
 *     public Class<Add> inputType() { return Add.class; }
 *     public Integer execute(Add in, ToolContext ctx) { return in.a() + in.b(); }
 * }
 * }</pre>
 *
 * @param <I> the input type
 * <p>A tool whose calls deliver a message to the user, edit memory or are answered by another agent says so by
 * returning a {@link ToolOutput} (its value is what the model reads, its {@link ToolEffect}s what the call did).
 *
 * @param <O> the output type; a {@code String} is given to the model as is, a {@link ToolOutput} as its value with
 *            its effects, anything else as JSON
 */
public interface AiTool<I, O> {
    /** The tool's fixed facts: name, description, safety tier, timeout and truncation. */
    ToolInfo info();

    /** The input type: a record or a sealed interface of records. */
    Class<I> inputType();

    /** The name the model calls; from {@link #info()}. */
    default String name() {
        return info().name();
    }

    /** What the tool does, written for a model; from {@link #info()}. */
    default String description() {
        return info().description();
    }

    /** From {@link #info()}. */
    default SafetyTier safetyTier() {
        return info().tier();
    }

    /** How long a call may run before it is interrupted; from {@link #info()}. */
    default Duration timeout() {
        return info().timeout();
    }

    /**
     * Whether the pipeline may run it on the caller's thread ({@link DynamicTool#runsInline()}): only for a cheap,
     * trusted tool that never blocks. Defaults to {@code false}.
     */
    default boolean runsInline() {
        return false;
    }

    /** Which end of an over-long output to keep; from {@link #info()}. */
    default Truncation truncation() {
        return info().truncation();
    }

    /**
     * Runs the tool. The input has been validated against the schema. Throw {@link ToolException}
     * with a message for the model to report an expected failure; anything else is an internal error.
     * Long-running tools should respond to interruption: timeouts and cancellation interrupt them.
     */
    O execute(I input, ToolContext context) throws Exception;

    /**
     * What the call will do, shown to a human who is asked to approve it (a diff, a command line).
     * Defaults to none, in which case the approval prompt shows the arguments.
     */
    default Optional<String> approvalPreview(I input, ToolContext context) throws Exception {
        return Optional.empty();
    }

    /**
     * What an approval "for the session" of this call covers; empty (the default) for every call of the
     * tool. See {@link DynamicTool#approvalScope}.
     */
    default Optional<String> approvalScope(I input) {
        return Optional.empty();
    }

    /**
     * The input field whose text the user reads when a call delivers a message to the user (see
     * {@link DynamicTool#userMessageArgument()}); empty, the default, for tools that never do.
     */
    default Optional<String> userMessageArgument() {
        return Optional.empty();
    }

    /** The body of a tool built with {@link #of}. */
    @FunctionalInterface
    interface Function<I, O> {
        O apply(I input, ToolContext context) throws Exception;
    }

    /**
     * A tool from a lambda, with the default timeout and truncation.
     *
     * @throws ToolDefinitionException if the name, description or input type is not usable
     */
    static <I, O> AiTool<I, O> of(String name, String description, Class<I> inputType, SafetyTier tier,
            Function<I, O> function) {
        Objects.requireNonNull(function, "function");
        Objects.requireNonNull(inputType, "inputType");
        ToolInfo info = ToolInfo.of(name, description, tier);
        return new AiTool<>() {
            @Override
            public ToolInfo info() {
                return info;
            }

            @Override
            public Class<I> inputType() {
                return inputType;
            }

            @Override
            public O execute(I input, ToolContext context) throws Exception {
                return function.apply(input, context);
            }

            @Override
            public String toString() {
                return "AiTool[" + name + "]";
            }
        };
    }
}

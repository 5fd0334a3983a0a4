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
 * @param <I> the input type
 * @param <O> the output type; a {@code String} is given to the model as is, anything else as JSON
 */
public interface AiTool<I, O> {
    /** The name the model calls; must match {@code ^[a-zA-Z0-9_-]{1,64}$}. */
    String name();

    /** What the tool does, when to use it, and what it returns, written for a model. */
    String description();

    /** The input type: a record or a sealed interface of records. */
    Class<I> inputType();

    /** Defaults to {@link SafetyTier#SIDE_EFFECTING}: a tool must say it is read-only to be treated so. */
    default SafetyTier safetyTier() {
        return SafetyTier.SIDE_EFFECTING;
    }

    /** How long a call may run before it is interrupted; defaults to 30 seconds. */
    default Duration timeout() {
        return Duration.ofSeconds(30);
    }

    /** Which end of an over-long output to keep; defaults to the head. */
    default Truncation truncation() {
        return Truncation.KEEP_HEAD;
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
        Objects.requireNonNull(tier, "tier");
        Objects.requireNonNull(inputType, "inputType");
        ToolNames.requireValid(name);
        ToolNames.requireDescription(name, description);
        return new AiTool<>() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String description() {
                return description;
            }

            @Override
            public Class<I> inputType() {
                return inputType;
            }

            @Override
            public SafetyTier safetyTier() {
                return tier;
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

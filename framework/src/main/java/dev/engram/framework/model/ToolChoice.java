package dev.engram.framework.model;

import java.util.Objects;
import java.util.Optional;

/**
 * Whether and which tools the model must call.
 *
 * @param mode auto, required, none, or one named tool
 * @param tool the tool's name, for {@link Mode#NAMED}
 */
public record ToolChoice(Mode mode, Optional<String> tool) {
    /** The choices. */
    public enum Mode {
        /** The model decides. */
        AUTO,
        /** The model must call some tool. */
        REQUIRED,
        /** The model must not call tools. */
        NONE,
        /** The model must call the named tool. */
        NAMED
    }

    public ToolChoice {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(tool, "tool");
        if ((mode == Mode.NAMED) != tool.isPresent()) {
            throw new IllegalArgumentException("a named tool choice needs a tool name, and only it may have one");
        }
    }

    public static ToolChoice auto() {
        return new ToolChoice(Mode.AUTO, Optional.empty());
    }

    public static ToolChoice required() {
        return new ToolChoice(Mode.REQUIRED, Optional.empty());
    }

    public static ToolChoice none() {
        return new ToolChoice(Mode.NONE, Optional.empty());
    }

    public static ToolChoice named(String tool) {
        return new ToolChoice(Mode.NAMED, Optional.of(tool));
    }
}

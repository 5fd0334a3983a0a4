package dev.engram.framework.model;

import java.util.Objects;
import java.util.Optional;

/**
 * Generation options of one request.
 *
 * @param temperature       sampling temperature, 0 to 2
 * @param maxTokens         the most output tokens
 * @param toolChoice        whether and which tools must be called
 * @param parallelToolCalls whether the model may call several tools in one turn
 */
public record ChatOptions(Optional<Double> temperature, Optional<Integer> maxTokens, ToolChoice toolChoice,
        boolean parallelToolCalls) {
    public ChatOptions {
        Objects.requireNonNull(temperature, "temperature");
        Objects.requireNonNull(maxTokens, "maxTokens");
        Objects.requireNonNull(toolChoice, "toolChoice");
        temperature.ifPresent(t -> {
            if (t < 0 || t > 2 || t.isNaN()) {
                throw new IllegalArgumentException("temperature must be between 0 and 2, got " + t);
            }
        });
        maxTokens.ifPresent(m -> {
            if (m < 1) {
                throw new IllegalArgumentException("max tokens must be positive, got " + m);
            }
        });
    }

    /** Provider defaults, tool choice auto, parallel tool calls on. */
    public static ChatOptions defaults() {
        return new ChatOptions(Optional.empty(), Optional.empty(), ToolChoice.auto(), true);
    }

    public ChatOptions withTemperature(double t) {
        return new ChatOptions(Optional.of(t), maxTokens, toolChoice, parallelToolCalls);
    }

    public ChatOptions withMaxTokens(int max) {
        return new ChatOptions(temperature, Optional.of(max), toolChoice, parallelToolCalls);
    }

    public ChatOptions withToolChoice(ToolChoice choice) {
        return new ChatOptions(temperature, maxTokens, choice, parallelToolCalls);
    }

    public ChatOptions withParallelToolCalls(boolean parallel) {
        return new ChatOptions(temperature, maxTokens, toolChoice, parallel);
    }
}

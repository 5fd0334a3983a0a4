package dev.engram.framework.model;

import java.util.Objects;
import java.util.Optional;

/**
 * Generation options of one request. Each adapter sends what its provider's wire format defines and leaves out what
 * it has no field for (see each setting).
 *
 * @param temperature           sampling temperature, 0 to 2
 * @param maxTokens             the most output tokens
 * @param toolChoice            whether and which tools must be called
 * @param parallelToolCalls     whether the model may call several tools in one turn
 * @param reasoning             whether the model reasons before it answers (Anthropic's {@code thinking}, Gemini's
 *                              {@code thinkingConfig}); OpenAI's format has no switch, only an effort
 * @param reasoningBudgetTokens the most tokens it may reason with (Anthropic, Gemini)
 * @param effort                how hard it works: OpenAI's {@code reasoning_effort}, Anthropic's {@code output_config.effort}
 * @param frequencyPenalty      penalty for repeated tokens, -2 to 2 (OpenAI-compatible servers, Gemini)
 * @param responseFormat        Letta's and OpenAI's {@code response_format} object as JSON text (OpenAI-compatible
 *                              servers; Gemini as {@code responseMimeType} and schema)
 */
public record ChatOptions(Optional<Double> temperature, Optional<Integer> maxTokens, ToolChoice toolChoice,
        boolean parallelToolCalls, Optional<Boolean> reasoning, Optional<Integer> reasoningBudgetTokens,
        Optional<String> effort, Optional<Double> frequencyPenalty, Optional<String> responseFormat) {
    public ChatOptions {
        Objects.requireNonNull(temperature, "temperature");
        Objects.requireNonNull(maxTokens, "maxTokens");
        Objects.requireNonNull(toolChoice, "toolChoice");
        Objects.requireNonNull(reasoning, "reasoning");
        Objects.requireNonNull(reasoningBudgetTokens, "reasoningBudgetTokens");
        Objects.requireNonNull(effort, "effort");
        Objects.requireNonNull(frequencyPenalty, "frequencyPenalty");
        Objects.requireNonNull(responseFormat, "responseFormat");
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
        reasoningBudgetTokens.ifPresent(m -> {
            if (m < 0) {
                throw new IllegalArgumentException("reasoning budget tokens must not be negative, got " + m);
            }
        });
        frequencyPenalty.ifPresent(p -> {
            if (!(p >= -2 && p <= 2)) {
                throw new IllegalArgumentException("frequency penalty must be between -2 and 2, got " + p);
            }
        });
        responseFormat.ifPresent(f -> {
            if (!ModelJson.MAPPER.readTree(f).isObject()) {
                throw new IllegalArgumentException("response format must be a JSON object, got " + f);
            }
        });
    }

    /** Options with the four basic settings, the others the provider's defaults. */
    public ChatOptions(Optional<Double> temperature, Optional<Integer> maxTokens, ToolChoice toolChoice, boolean parallelToolCalls) {
        this(temperature, maxTokens, toolChoice, parallelToolCalls, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty());
    }

    /** Provider defaults, tool choice auto, parallel tool calls on. */
    public static ChatOptions defaults() {
        return new ChatOptions(Optional.empty(), Optional.empty(), ToolChoice.auto(), true);
    }

    public ChatOptions withTemperature(double t) {
        return new ChatOptions(Optional.of(t), maxTokens, toolChoice, parallelToolCalls, reasoning, reasoningBudgetTokens, effort,
                frequencyPenalty, responseFormat);
    }

    public ChatOptions withMaxTokens(int max) {
        return new ChatOptions(temperature, Optional.of(max), toolChoice, parallelToolCalls, reasoning, reasoningBudgetTokens,
                effort, frequencyPenalty, responseFormat);
    }

    public ChatOptions withToolChoice(ToolChoice choice) {
        return new ChatOptions(temperature, maxTokens, choice, parallelToolCalls, reasoning, reasoningBudgetTokens, effort,
                frequencyPenalty, responseFormat);
    }

    public ChatOptions withParallelToolCalls(boolean parallel) {
        return new ChatOptions(temperature, maxTokens, toolChoice, parallel, reasoning, reasoningBudgetTokens, effort,
                frequencyPenalty, responseFormat);
    }

    /** Reasoning on or off. */
    public ChatOptions withReasoning(boolean on) {
        return new ChatOptions(temperature, maxTokens, toolChoice, parallelToolCalls, Optional.of(on), reasoningBudgetTokens,
                effort, frequencyPenalty, responseFormat);
    }

    public ChatOptions withReasoningBudgetTokens(int tokens) {
        return new ChatOptions(temperature, maxTokens, toolChoice, parallelToolCalls, reasoning, Optional.of(tokens), effort,
                frequencyPenalty, responseFormat);
    }

    public ChatOptions withEffort(String level) {
        return new ChatOptions(temperature, maxTokens, toolChoice, parallelToolCalls, reasoning, reasoningBudgetTokens,
                Optional.of(Objects.requireNonNull(level, "effort")), frequencyPenalty, responseFormat);
    }

    public ChatOptions withFrequencyPenalty(double penalty) {
        return new ChatOptions(temperature, maxTokens, toolChoice, parallelToolCalls, reasoning, reasoningBudgetTokens, effort,
                Optional.of(penalty), responseFormat);
    }

    /** {@code json}: a {@code response_format} object such as {@code {"type": "json_object"}}. */
    public ChatOptions withResponseFormat(String json) {
        return new ChatOptions(temperature, maxTokens, toolChoice, parallelToolCalls, reasoning, reasoningBudgetTokens, effort,
                frequencyPenalty, Optional.of(Objects.requireNonNull(json, "response format")));
    }
}

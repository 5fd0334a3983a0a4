package dev.engram.agents;

import dev.engram.framework.model.ChatOptions;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How an agent's model generates: Letta's per-agent model settings ({@code model_settings}, and the
 * {@code llm_config} fields of an agent file). Each setting is empty unless set: empty means the provider's
 * default. Immutable; made with {@link #builder()} or changed with {@link #toBuilder()}.
 */
public final class ModelSettings {
    /** No setting: every one is the provider's default. */
    public static final ModelSettings PROVIDER_DEFAULTS = builder().build();

    /** The reasoning efforts Letta's model settings take (OpenAI's {@code reasoning_effort} and Anthropic's {@code effort}). */
    public static final List<String> EFFORTS = List.of("none", "minimal", "low", "medium", "high", "xhigh", "max");

    /** The response formats Letta's model settings take, by their {@code type}. */
    public static final List<String> RESPONSE_FORMATS = List.of("text", "json_object", "json_schema");

    private final Optional<Double> temperature;
    private final Optional<Integer> maxTokens;
    private final Optional<Boolean> reasoning;
    private final Optional<Integer> reasoningBudgetTokens;
    private final Optional<String> effort;
    private final Optional<Double> frequencyPenalty;
    private final Optional<Boolean> parallelToolCalls;
    private final Optional<String> responseFormat;

    private ModelSettings(Builder b) {
        this.temperature = Optional.ofNullable(b.temperature);
        this.maxTokens = Optional.ofNullable(b.maxTokens);
        this.reasoning = Optional.ofNullable(b.reasoning);
        this.reasoningBudgetTokens = Optional.ofNullable(b.reasoningBudgetTokens);
        this.effort = Optional.ofNullable(b.effort);
        this.frequencyPenalty = Optional.ofNullable(b.frequencyPenalty);
        this.parallelToolCalls = Optional.ofNullable(b.parallelToolCalls);
        this.responseFormat = Optional.ofNullable(b.responseFormat);
    }

    /** A builder with every setting the provider's default. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.temperature = temperature.orElse(null);
        b.maxTokens = maxTokens.orElse(null);
        b.reasoning = reasoning.orElse(null);
        b.reasoningBudgetTokens = reasoningBudgetTokens.orElse(null);
        b.effort = effort.orElse(null);
        b.frequencyPenalty = frequencyPenalty.orElse(null);
        b.parallelToolCalls = parallelToolCalls.orElse(null);
        b.responseFormat = responseFormat.orElse(null);
        return b;
    }

    /** Sampling temperature, 0 to 2. */
    public Optional<Double> temperature() {
        return temperature;
    }

    /** The most output tokens per model call (reasoning included). */
    public Optional<Integer> maxTokens() {
        return maxTokens;
    }

    /** Whether the model reasons (extended thinking) before it answers. */
    public Optional<Boolean> reasoning() {
        return reasoning;
    }

    /** The most tokens the model may reason with per call. */
    public Optional<Integer> reasoningBudgetTokens() {
        return reasoningBudgetTokens;
    }

    /** How hard the model works, one of {@link #EFFORTS}. */
    public Optional<String> effort() {
        return effort;
    }

    /** Penalty for tokens by their frequency so far, -2 to 2. */
    public Optional<Double> frequencyPenalty() {
        return frequencyPenalty;
    }

    /** Whether the model may call several tools in one step. */
    public Optional<Boolean> parallelToolCalls() {
        return parallelToolCalls;
    }

    /** The response format as Letta writes it, a JSON object whose {@code type} is one of {@link #RESPONSE_FORMATS}. */
    public Optional<String> responseFormat() {
        return responseFormat;
    }

    /** Whether every setting is the provider's default. */
    public boolean isProviderDefaults() {
        return equals(PROVIDER_DEFAULTS);
    }

    /** The options of a model request with these settings (every other option the defaults). */
    public ChatOptions chatOptions() {
        ChatOptions o = ChatOptions.defaults();
        o = temperature.map(o::withTemperature).orElse(o);
        o = maxTokens.map(o::withMaxTokens).orElse(o);
        o = parallelToolCalls.map(o::withParallelToolCalls).orElse(o);
        o = reasoning.map(o::withReasoning).orElse(o);
        o = reasoningBudgetTokens.map(o::withReasoningBudgetTokens).orElse(o);
        o = effort.map(o::withEffort).orElse(o);
        o = frequencyPenalty.map(o::withFrequencyPenalty).orElse(o);
        return responseFormat.map(o::withResponseFormat).orElse(o);
    }

    /** The settings as stored: one field per setting that is set, in Letta's snake_case. */
    ObjectNode toJson() {
        ObjectNode o = Heartbeats.JSON.createObjectNode();
        temperature.ifPresent(v -> o.put("temperature", v));
        maxTokens.ifPresent(v -> o.put("max_tokens", v));
        reasoning.ifPresent(v -> o.put("reasoning", v));
        reasoningBudgetTokens.ifPresent(v -> o.put("reasoning_budget_tokens", v));
        effort.ifPresent(v -> o.put("effort", v));
        frequencyPenalty.ifPresent(v -> o.put("frequency_penalty", v));
        parallelToolCalls.ifPresent(v -> o.put("parallel_tool_calls", v));
        responseFormat.ifPresent(v -> o.set("response_format", Heartbeats.JSON.readTree(v)));
        return o;
    }

    /** The settings {@link #toJson} wrote; a missing object is the provider's defaults. */
    static ModelSettings fromJson(JsonNode o) {
        if (o == null || o.isMissingNode() || o.isNull()) {
            return PROVIDER_DEFAULTS;
        }
        Builder b = builder();
        if (o.hasNonNull("temperature")) {
            b.temperature(o.get("temperature").asDouble());
        }
        if (o.hasNonNull("max_tokens")) {
            b.maxTokens(o.get("max_tokens").asInt());
        }
        if (o.hasNonNull("reasoning")) {
            b.reasoning(o.get("reasoning").asBoolean());
        }
        if (o.hasNonNull("reasoning_budget_tokens")) {
            b.reasoningBudgetTokens(o.get("reasoning_budget_tokens").asInt());
        }
        if (o.hasNonNull("effort")) {
            b.effort(o.get("effort").asString());
        }
        if (o.hasNonNull("frequency_penalty")) {
            b.frequencyPenalty(o.get("frequency_penalty").asDouble());
        }
        if (o.hasNonNull("parallel_tool_calls")) {
            b.parallelToolCalls(o.get("parallel_tool_calls").asBoolean());
        }
        if (o.hasNonNull("response_format")) {
            b.responseFormat(o.get("response_format").toString());
        }
        return b.build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ModelSettings m && temperature.equals(m.temperature) && maxTokens.equals(m.maxTokens)
                && reasoning.equals(m.reasoning) && reasoningBudgetTokens.equals(m.reasoningBudgetTokens)
                && effort.equals(m.effort) && frequencyPenalty.equals(m.frequencyPenalty)
                && parallelToolCalls.equals(m.parallelToolCalls) && responseFormat.equals(m.responseFormat);
    }

    @Override
    public int hashCode() {
        return Objects.hash(temperature, maxTokens, reasoning, reasoningBudgetTokens, effort, frequencyPenalty,
                parallelToolCalls, responseFormat);
    }

    @Override
    public String toString() {
        return "ModelSettings" + toJson();
    }

    /** Builds {@link ModelSettings}; each setter checks its value at once. */
    public static final class Builder {
        private Double temperature;
        private Integer maxTokens;
        private Boolean reasoning;
        private Integer reasoningBudgetTokens;
        private String effort;
        private Double frequencyPenalty;
        private Boolean parallelToolCalls;
        private String responseFormat;

        private Builder() {
        }

        /** @throws IllegalArgumentException unless 0 to 2 */
        public Builder temperature(double t) {
            if (!(t >= 0 && t <= 2)) {
                throw new IllegalArgumentException("temperature must be between 0 and 2, got " + t);
            }
            this.temperature = t;
            return this;
        }

        /** @throws IllegalArgumentException unless positive */
        public Builder maxTokens(int tokens) {
            if (tokens < 1) {
                throw new IllegalArgumentException("max tokens must be positive, got " + tokens);
            }
            this.maxTokens = tokens;
            return this;
        }

        public Builder reasoning(boolean on) {
            this.reasoning = on;
            return this;
        }

        /** @throws IllegalArgumentException if negative */
        public Builder reasoningBudgetTokens(int tokens) {
            if (tokens < 0) {
                throw new IllegalArgumentException("reasoning budget tokens must not be negative, got " + tokens);
            }
            this.reasoningBudgetTokens = tokens;
            return this;
        }

        /** @throws IllegalArgumentException unless one of {@link #EFFORTS} */
        public Builder effort(String effort) {
            if (!EFFORTS.contains(effort)) {
                throw new IllegalArgumentException("effort must be one of " + EFFORTS + ", got '" + effort + "'");
            }
            this.effort = effort;
            return this;
        }

        /** @throws IllegalArgumentException unless -2 to 2 */
        public Builder frequencyPenalty(double penalty) {
            if (!(penalty >= -2 && penalty <= 2)) {
                throw new IllegalArgumentException("frequency penalty must be between -2 and 2, got " + penalty);
            }
            this.frequencyPenalty = penalty;
            return this;
        }

        public Builder parallelToolCalls(boolean parallel) {
            this.parallelToolCalls = parallel;
            return this;
        }

        /**
         * The response format as Letta writes it: {@code {"type": "text"}}, {@code {"type": "json_object"}} or
         * {@code {"type": "json_schema", "json_schema": {...}}}.
         *
         * @throws IllegalArgumentException if it is not such a JSON object
         */
        public Builder responseFormat(String json) {
            Objects.requireNonNull(json, "response format must not be null");
            JsonNode node;
            try {
                node = Heartbeats.JSON.readTree(json);
            } catch (JacksonException e) {
                throw new IllegalArgumentException("response format is not JSON: " + e.getOriginalMessage());
            }
            String type = node.path("type").asString("");
            if (!node.isObject() || !RESPONSE_FORMATS.contains(type)) {
                throw new IllegalArgumentException("response format must be an object whose \"type\" is one of "
                        + RESPONSE_FORMATS + ", got " + json);
            }
            if (type.equals("json_schema") && !node.path("json_schema").isObject()) {
                throw new IllegalArgumentException("a json_schema response format needs a \"json_schema\" object, got " + json);
            }
            this.responseFormat = node.toString();
            return this;
        }

        /** Back to the provider's default for every setting. */
        public Builder clear() {
            temperature = null;
            maxTokens = null;
            reasoning = null;
            reasoningBudgetTokens = null;
            effort = null;
            frequencyPenalty = null;
            parallelToolCalls = null;
            responseFormat = null;
            return this;
        }

        public ModelSettings build() {
            return new ModelSettings(this);
        }
    }
}

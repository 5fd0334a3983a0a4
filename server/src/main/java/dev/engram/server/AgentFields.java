package dev.engram.server;

import dev.engram.agents.AgentDefinition;
import dev.engram.agents.ModelSettings;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fields of Letta's {@code CreateAgentRequest} and {@code UpdateAgent} besides name, model, prompt, blocks, tools and
 * rules: the ones Engram stores (description, metadata, timezone, file limits, model settings and their deprecated
 * top-level forms), and the ones it refuses with a 422 saying why. None is accepted and then dropped.
 */
final class AgentFields {
    /** Fields Engram cannot honour, and why: refused when given a value other than Letta's "nothing" (null, false, empty). */
    private static final Map<String, String> REFUSED = new LinkedHashMap<>();

    static {
        REFUSED.put("include_default_source", "Engram creates no default folder; create one (POST /v1/folders) and "
                + "give its id in folder_ids");
        String secrets = "Engram keeps no secrets or environment variables for tools; the operator configures tools "
                + "where the server runs";
        REFUSED.put("secrets", secrets);
        REFUSED.put("tool_exec_environment_variables", secrets);
        // Letta's "embedding" handle (its quickstart names openai/text-embedding-3-small) is accepted and left aside: the
        // server's one embedding model embeds every agent's memory. A configuration of one is refused.
        String embedding = "Engram embeds archival memory with the server's own embedding model, the same for every agent; "
                + "leave it out";
        REFUSED.put("embedding_config", embedding);
        REFUSED.put("embedding_chunk_size", embedding);
        REFUSED.put("message_buffer_autoclear", "Engram keeps every message in recall memory and in context until the "
                + "context window compacts it; clearing the buffer after each turn is not supported");
        REFUSED.put("initial_message_sequence", "Engram does not seed a new agent's history; send the messages to the "
                + "agent after creating it (POST /v1/agents/{agent_id}/messages)");
        REFUSED.put("include_base_tool_rules", "Engram has no base tool rules; give the rules you want in tool_rules");
        REFUSED.put("include_multi_agent_tools", "Engram does not add Letta's multi-agent tools by this flag; name the "
                + "ones the agent needs in tools (send_message_to_agent_and_wait_for_reply, "
                + "send_message_to_agents_matching_tags, send_message_to_agent_async)");
        String template = "templates and projects are deprecated in Letta and not used; leave it out";
        for (String f : new String[] {"from_template", "template", "project", "project_id", "template_id",
                "base_template_id", "memory_variables", "hidden"}) {
            REFUSED.put(f, template);
        }
        REFUSED.put("message_ids", "Engram decides which messages are in context (by compaction); set them by sending "
                + "messages or resetting them (PATCH /v1/agents/{agent_id}/reset-messages)");
        String runStats = "set by the server after each run, not by a client";
        REFUSED.put("last_run_completion", runStats);
        REFUSED.put("last_run_duration_ms", runStats);
        REFUSED.put("last_stop_reason", runStats);
    }

    private AgentFields() {
    }

    /**
     * Applies the request's description, metadata, timezone and model settings to {@code b} (whose current settings
     * are {@code current}), after refusing every field Engram cannot honour; a 422 naming the field otherwise.
     */
    static void apply(Body body, AgentDefinition.Builder b, ModelSettings current) {
        refuseUnsupported(body);
        body.string("description").ifPresent(b::description);
        body.object("metadata").ifPresent(m -> b.metadata(m.toString()));
        body.string("timezone").ifPresent(zone -> {
            try {
                b.timezone(ZoneId.of(zone));
            } catch (DateTimeException e) {
                throw body.problem("value_error", "Unknown timezone '" + zone + "': use an IANA time zone such as "
                        + "Europe/Lisbon or UTC", "timezone");
            }
        });
        b.modelSettings(modelSettings(body, current));
        fileLimits(body, b);
    }

    /**
     * The request's {@code max_files_open} and {@code per_file_view_window_char_limit} applied to {@code b}; a 422 naming
     * the field and its bounds for a number out of them (unset or null: the agent keeps what it has, or Letta's
     * default for its context window).
     */
    static void fileLimits(Body body, AgentDefinition.Builder b) {
        body.integer("max_files_open").ifPresent(n -> {
            try {
                b.maxFilesOpen(n);
            } catch (IllegalArgumentException e) {
                throw body.problem("value_error", e.getMessage(), "max_files_open");
            }
        });
        body.integer("per_file_view_window_char_limit").ifPresent(n -> {
            try {
                b.perFileViewWindowCharLimit(n);
            } catch (IllegalArgumentException e) {
                throw body.problem("value_error", e.getMessage(), "per_file_view_window_char_limit");
            }
        });
    }

    /** A 422 for the first field given that Engram cannot honour. */
    static void refuseUnsupported(Body body) {
        for (Map.Entry<String, String> f : REFUSED.entrySet()) {
            Optional<JsonNode> v = body.raw(f.getKey());
            if (v.isPresent() && !nothing(v.get())) {
                throw body.problem("value_error", f.getKey() + " is not supported: " + f.getValue(), f.getKey());
            }
        }
        compaction(body);
    }

    /**
     * Letta's {@code compaction_settings} asks how the context window is summarised. Engram compacts with its own
     * summariser on the agent's model, which is what Letta's {@code "model": "letta/auto"} (or no model) leaves to the
     * server, so that is accepted (Letta Code sends it); any other setting is a 422 naming it, since Engram would not
     * honour it.
     */
    static void compaction(Body body) {
        Optional<ObjectNode> settings = body.object("compaction_settings");
        if (settings.isEmpty()) {
            Optional<JsonNode> raw = body.raw("compaction_settings");
            if (raw.isPresent() && !raw.get().isNull()) {
                throw body.problem("model_attributes_type", "Input should be an object", "compaction_settings");
            }
            return;
        }
        Body s = Body.of(settings.get(), body.location("compaction_settings"));
        for (String field : (Iterable<String>) () -> settings.get().propertyNames().iterator()) {
            JsonNode v = settings.get().get(field);
            boolean serversChoice = v.isNull() || (field.equals("model") && v.isString() && v.asString().equals("letta/auto"));
            if (!serversChoice) {
                throw s.problem("value_error", "compaction_settings." + field + " is not supported: Engram compacts the context "
                        + "window with its own summariser on the agent's model; leave it out, or give \"model\": \"letta/auto\"",
                        field);
            }
        }
    }

    private static boolean nothing(JsonNode v) {
        return v.isNull() || (v.isBoolean() && !v.asBoolean()) || (v.isContainer() && v.isEmpty())
                || (v.isString() && v.asString().isEmpty());
    }

    /**
     * The settings with the request's {@code model_settings} and the deprecated top-level {@code max_tokens},
     * {@code max_reasoning_tokens}, {@code enable_reasoner}, {@code reasoning}, {@code parallel_tool_calls} and
     * {@code response_format} applied over {@code current}.
     */
    static ModelSettings modelSettings(Body body, ModelSettings current) {
        ModelSettings.Builder m = current.toBuilder();
        try {
            body.integer("max_tokens").ifPresent(m::maxTokens);
            body.integer("max_reasoning_tokens").ifPresent(m::reasoningBudgetTokens);
            body.bool("enable_reasoner").ifPresent(m::reasoning);
            body.bool("reasoning").ifPresent(m::reasoning);
            body.bool("parallel_tool_calls").ifPresent(m::parallelToolCalls);
            body.object("response_format").ifPresent(f -> m.responseFormat(f.toString()));
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", e.getMessage(), "body");
        }
        Optional<ObjectNode> settings = body.object("model_settings");
        if (settings.isPresent()) {
            Body s = Body.of(settings.get(), body.location("model_settings"));
            for (String field : (Iterable<String>) () -> settings.get().propertyNames().iterator()) {
                try {
                    settingsField(s, field, m);
                } catch (IllegalArgumentException e) {
                    throw s.problem("value_error", e.getMessage(), field);
                }
            }
        }
        return m.build();
    }

    private static void settingsField(Body s, String field, ModelSettings.Builder m) {
        switch (field) {
            case "provider_type" -> s.string(field); // the settings' shape; the provider is the model's
            case "max_output_tokens" -> s.integer(field).ifPresent(m::maxTokens);
            case "temperature" -> number(s, field).ifPresent(m::temperature);
            case "frequency_penalty" -> number(s, field).ifPresent(m::frequencyPenalty);
            case "parallel_tool_calls" -> s.bool(field).ifPresent(m::parallelToolCalls);
            case "effort" -> s.string(field).ifPresent(m::effort);
            case "response_format" -> s.object(field).ifPresent(f -> m.responseFormat(f.toString()));
            case "reasoning" -> s.object(field).ifPresent(r -> Optional.ofNullable(r.get("reasoning_effort"))
                    .filter(JsonNode::isString).ifPresent(e -> {
                        m.effort(e.asString());
                        m.reasoning(!e.asString().equals("none"));
                    }));
            case "thinking" -> s.object(field).ifPresent(t -> {
                if (t.hasNonNull("type")) {
                    m.reasoning(t.get("type").asString().equals("enabled"));
                }
                if (t.hasNonNull("budget_tokens")) {
                    m.reasoningBudgetTokens(t.get("budget_tokens").asInt());
                }
            });
            case "thinking_config" -> s.object(field).ifPresent(t -> {
                if (t.hasNonNull("include_thoughts")) {
                    m.reasoning(t.get("include_thoughts").asBoolean());
                }
                if (t.hasNonNull("thinking_budget")) {
                    m.reasoningBudgetTokens(t.get("thinking_budget").asInt());
                }
            });
            default -> {
                if (s.raw(field).isPresent()) {
                    throw new IllegalArgumentException(field + " is not supported: Engram's model settings are "
                            + "max_output_tokens, temperature, frequency_penalty, parallel_tool_calls, reasoning, thinking, "
                            + "thinking_config, effort and response_format");
                }
            }
        }
    }

    private static Optional<Double> number(Body s, String field) {
        Optional<JsonNode> v = s.raw(field);
        if (v.isPresent() && !v.get().isNumber()) {
            throw s.problem("float_type", "Input should be a valid number", field);
        }
        return v.map(JsonNode::asDouble);
    }

    /** Letta's {@code model_settings} for the agent view: the settings that are set, in Letta's field names. */
    static ObjectNode view(ModelSettings m, String provider) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("provider_type", provider);
        m.maxTokens().ifPresent(v -> o.put("max_output_tokens", v));
        m.temperature().ifPresent(v -> o.put("temperature", v));
        m.frequencyPenalty().ifPresent(v -> o.put("frequency_penalty", v));
        m.parallelToolCalls().ifPresent(v -> o.put("parallel_tool_calls", v));
        m.effort().ifPresent(v -> o.put("effort", v));
        m.effort().ifPresent(v -> o.putObject("reasoning").put("reasoning_effort", v));
        if (m.reasoning().isPresent() || m.reasoningBudgetTokens().isPresent()) {
            ObjectNode t = o.putObject("thinking");
            m.reasoning().ifPresent(on -> t.put("type", on ? "enabled" : "disabled"));
            m.reasoningBudgetTokens().ifPresent(v -> t.put("budget_tokens", v));
        }
        m.responseFormat().ifPresent(v -> o.set("response_format", Body.JSON.readTree(v)));
        return o;
    }
}

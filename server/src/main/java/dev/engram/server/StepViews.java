package dev.engram.server;

import dev.engram.memory.Run;
import dev.engram.memory.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Letta's shapes of runs' steps and what is measured of them: {@code Step}, {@code StepMetrics}, {@code ProviderTrace},
 * {@code RunMetrics}, {@code UsageStatistics}. Fields Engram does not have (projects, templates, provider ids, cached
 * and reasoning token details, OpenTelemetry trace ids) are {@code null}.
 */
final class StepViews {
    private StepViews() {
    }

    /** Letta's {@code Step}. */
    static ObjectNode step(Step s) {
        ObjectNode o = Body.JSON.createObjectNode().put("id", s.id());
        o.putNull("origin");
        o.putNull("provider_id");
        o.put("run_id", s.runId()).put("agent_id", s.agentId());
        nullIfEmpty(o, "provider_name", s.provider());
        o.put("provider_category", "base");
        o.put("model", s.model()).put("model_handle", s.model());
        o.putNull("model_endpoint");
        o.putNull("context_window_limit");
        o.put("completion_tokens", s.completionTokens()).put("prompt_tokens", s.promptTokens())
                .put("total_tokens", s.totalTokens());
        for (String absent : List.of("cached_input_tokens", "cache_write_tokens", "reasoning_tokens",
                "completion_tokens_details", "prompt_tokens_details")) {
            o.putNull(absent);
        }
        nullIfEmpty(o, "stop_reason", s.stopReason());
        s.tags().forEach(o.putArray("tags")::add);
        o.putNull("tid");
        o.putNull("trace_id");
        o.putNull("request_id");
        o.putArray("messages");
        nullIfEmpty(o, "feedback", s.feedback());
        o.putNull("project_id");
        if (s.status().equals("failed")) {
            o.put("error_type", "llm_api_error");
            o.putObject("error_data").put("message", "The model call of this step failed; the server's log has the details.");
        } else {
            o.putNull("error_type");
            o.putNull("error_data");
        }
        o.put("status", s.status());
        return o;
    }

    /** Letta's {@code StepMetrics}: the model call is timed; the rest of the step is its tools' time. */
    static ObjectNode metrics(Step s) {
        long stepNs = Duration.between(s.startedAt(), s.completedAt()).toNanos();
        long llmNs = s.modelTime().toNanos();
        ObjectNode o = Body.JSON.createObjectNode().put("id", s.id());
        o.putNull("provider_id");
        o.put("run_id", s.runId()).put("agent_id", s.agentId()).put("step_start_ns", epochNanos(s.startedAt()))
                .put("llm_request_start_ns", epochNanos(s.startedAt())).put("llm_request_ns", llmNs)
                .put("tool_execution_ns", Math.max(0, stepNs - llmNs)).put("step_ns", stepNs);
        o.putNull("base_template_id");
        o.putNull("template_id");
        o.putNull("project_id");
        return o;
    }

    /**
     * Letta's {@code ProviderTrace} of a step: {@code request_json} is Engram's compact reference to what the model was
     * asked (the ids of the stored messages in its prompt, the tools offered, the prompt's size), not the provider's raw
     * request, which Engram does not keep; {@code response_json} is the model's answer (text and tool calls).
     */
    static ObjectNode trace(Step s) {
        ObjectNode o = Body.JSON.createObjectNode().put("created_by_id", s.userId()).put("last_updated_by_id", s.userId())
                .put("created_at", LettaViews.date(s.startedAt())).put("updated_at", LettaViews.date(s.completedAt()))
                .put("id", "provider_trace-" + s.id().substring(Step.ID_PREFIX.length()));
        o.set("request_json", Body.JSON.readTree(s.request()));
        o.set("response_json", Body.JSON.readTree(s.response()));
        o.put("step_id", s.id()).put("agent_id", s.agentId());
        o.putArray("agent_tags");
        o.put("call_type", "agent_step").put("run_id", s.runId()).put("source", "engram");
        o.putNull("org_id");
        o.putNull("compaction_settings");
        o.putNull("llm_config");
        o.putNull("billing_context");
        return o;
    }

    /** Letta's {@code UsageStatistics} of a run: its steps' tokens. */
    static ObjectNode usage(List<Step> steps) {
        int prompt = steps.stream().mapToInt(Step::promptTokens).sum();
        int completion = steps.stream().mapToInt(Step::completionTokens).sum();
        ObjectNode o = Body.JSON.createObjectNode().put("completion_tokens", completion).put("prompt_tokens", prompt)
                .put("total_tokens", prompt + completion);
        o.putNull("prompt_tokens_details");
        o.putNull("completion_tokens_details");
        return o;
    }

    /** Letta's {@code RunMetrics}: its duration (so far, while it runs), its steps and the tools they called. */
    static ObjectNode runMetrics(Run run, List<Step> steps, Instant now) {
        Set<String> tools = new LinkedHashSet<>();
        for (Step s : steps) {
            for (JsonNode call : Body.JSON.readTree(s.response()).path("tool_calls")) {
                tools.add(call.path("name").asString());
            }
        }
        ObjectNode o = Body.JSON.createObjectNode().put("id", run.id()).put("agent_id", run.agentId());
        o.putNull("project_id");
        o.put("run_start_ns", epochNanos(run.createdAt()))
                .put("run_ns", Duration.between(run.createdAt(), run.completedAt().orElse(now)).toNanos())
                .put("num_steps", steps.size());
        tools.forEach(o.putArray("tools_used")::add);
        o.putNull("template_id");
        o.putNull("base_template_id");
        return o;
    }

    /**
     * A run's trace as Engram has it (Letta answers OpenTelemetry spans from ClickHouse): one span-like object per step,
     * {@code name} {@code agent_step}, with its step id, start, durations, model and tokens. Absent: trace and span
     * ids, parent spans, resource and scope attributes, and spans of tool calls and of the HTTP request.
     */
    static ObjectNode span(Step s) {
        return Body.JSON.createObjectNode().put("name", "agent_step").put("step_id", s.id()).put("run_id", s.runId())
                .put("agent_id", s.agentId()).put("start_time", LettaViews.date(s.startedAt()))
                .put("end_time", LettaViews.date(s.completedAt()))
                .put("duration_ns", Duration.between(s.startedAt(), s.completedAt()).toNanos())
                .put("llm_request_ns", s.modelTime().toNanos()).put("model", s.model())
                .put("prompt_tokens", s.promptTokens()).put("completion_tokens", s.completionTokens())
                .put("status", s.status());
    }

    private static long epochNanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    private static void nullIfEmpty(ObjectNode o, String field, String value) {
        if (value.isEmpty()) {
            o.putNull(field);
        } else {
            o.put(field, value);
        }
    }
}

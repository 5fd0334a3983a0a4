package dev.engram.memory.spi;

import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.Step;
import dev.engram.memory.ToolOutcome;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Column encodings a backend that stores text and numbers can share: timestamps as microseconds
 * since the epoch (the store truncates every time to microseconds), archival tags and message tool
 * calls as JSON arrays, a schedule's timing as a JSON object.
 */
public final class Columns {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Columns() {
    }

    /** Microseconds since the epoch. */
    public static long micros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    /** The instant of {@code micros} microseconds since the epoch. */
    public static Instant instant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    /** {@code instant} truncated to microseconds, as stored. */
    public static Instant truncate(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    /** Message ids as their column holds them: comma-separated. */
    public static String idsText(List<Long> ids) {
        StringBuilder out = new StringBuilder();
        ids.forEach(id -> out.append(out.isEmpty() ? "" : ",").append(id));
        return out.toString();
    }

    /** Message ids from their column. */
    public static List<Long> ids(String text) {
        List<Long> out = new ArrayList<>();
        for (String part : text.split(",")) {
            if (!part.isEmpty()) {
                out.add(Long.parseLong(part));
            }
        }
        return out;
    }

    /** A step from a row of the {@code steps} table (the same columns on every SQL backend). */
    public static Step step(ResultSet rs) throws SQLException {
        return new Step(rs.getString("id"), rs.getString("user_id"), rs.getString("agent_id"), rs.getString("run_id"),
                rs.getString("model"), rs.getString("provider"), rs.getInt("prompt_tokens"), rs.getInt("completion_tokens"),
                rs.getString("request"), rs.getString("response"), ids(rs.getString("message_ids")),
                rs.getString("stop_reason"), rs.getString("status"), instant(rs.getLong("started_at")),
                Duration.ofNanos(rs.getLong("model_ns")), instant(rs.getLong("completed_at")), rs.getString("feedback"),
                tags(rs.getString("tags")));
    }

    /** The columns of the {@code steps} table in the order of {@link #stepValues}. */
    public static final String STEP_COLUMNS = "id, user_id, agent_id, run_id, model, provider, prompt_tokens, "
            + "completion_tokens, request, response, message_ids, stop_reason, status, started_at, model_ns, completed_at, "
            + "feedback, tags";

    /** A step's values for the columns {@link #STEP_COLUMNS}. */
    public static List<Object> stepValues(Step s) {
        return List.of(s.id(), s.userId(), s.agentId(), s.runId(), s.model(), s.provider(), s.promptTokens(),
                s.completionTokens(), s.request(), s.response(), idsText(s.messageIds()), s.stopReason(), s.status(),
                micros(s.startedAt()), s.modelTime().toNanos(), micros(s.completedAt()), s.feedback(), tagsJson(s.tags()));
    }

    /** Tags as a JSON array. */
    public static String tagsJson(List<String> tags) {
        if (tags.isEmpty()) {
            return "[]";
        }
        ArrayNode array = MAPPER.createArrayNode();
        tags.forEach(array::add);
        return MAPPER.writeValueAsString(array);
    }

    /** Tags from a JSON array. */
    public static List<String> tags(String json) {
        List<String> out = new ArrayList<>();
        MAPPER.readTree(json).forEach(n -> out.add(n.asString()));
        return out;
    }

    /** Tool calls as a JSON array; {@code null} when there are none. */
    public static String toolCallsJson(List<MessageToolCall> calls) {
        if (calls.isEmpty()) {
            return null;
        }
        ArrayNode array = MAPPER.createArrayNode();
        for (MessageToolCall c : calls) {
            ObjectNode o = array.addObject();
            o.put("id", c.id());
            o.put("name", c.name());
            o.put("arguments", c.arguments());
        }
        return MAPPER.writeValueAsString(array);
    }

    /** Tool calls from a JSON array or {@code null}. */
    public static List<MessageToolCall> toolCalls(String json) {
        if (json == null) {
            return List.of();
        }
        List<MessageToolCall> out = new ArrayList<>();
        for (JsonNode n : MAPPER.readTree(json)) {
            out.add(new MessageToolCall(n.path("id").asString(), n.path("name").asString(), n.path("arguments").asString()));
        }
        return out;
    }

    /** A message's reasoning from its {@code reasoning}, {@code reasoning_signature} and {@code reasoning_redacted} columns. */
    public static MessageReasoning reasoning(String text, String signature, String redactedJson) {
        List<String> redacted = new ArrayList<>();
        if (redactedJson != null && !redactedJson.isBlank()) {
            for (JsonNode n : MAPPER.readTree(redactedJson)) {
                redacted.add(n.asString());
            }
        }
        return new MessageReasoning(text == null ? "" : text, signature == null ? "" : signature, redacted);
    }

    /** The {@code reasoning_redacted} column: the encrypted reasoning as a JSON array of strings. */
    public static String redactedJson(MessageReasoning reasoning) {
        ArrayNode array = MAPPER.createArrayNode();
        reasoning.redacted().forEach(array::add);
        return MAPPER.writeValueAsString(array);
    }

    /**
     * A tool message's outcome from its {@code tool_status} and {@code tool_effects} columns; empty when the status is
     * {@code null} (not a tool message).
     */
    public static Optional<ToolOutcome> toolOutcome(String status, String effects) {
        return status == null ? Optional.empty() : Optional.of(ToolOutcome.fromCodes(status, effects));
    }

    /** A schedule's timing as JSON: {@code {"once": micros}} or {@code {"cron": expression, "zone": zone id}}. */
    public static String timingJson(ScheduleTiming timing) {
        ObjectNode o = MAPPER.createObjectNode();
        switch (timing) {
            case ScheduleTiming.Once once -> o.put("once", micros(once.at()));
            case ScheduleTiming.Cron cron -> o.put("cron", cron.expression()).put("zone", cron.zone().getId());
        }
        return MAPPER.writeValueAsString(o);
    }

    /** A schedule's timing from the JSON of {@link #timingJson}. */
    public static ScheduleTiming timing(String json) {
        JsonNode o = MAPPER.readTree(json);
        return o.has("once") ? ScheduleTiming.once(instant(o.get("once").asLong()))
                : ScheduleTiming.cron(o.path("cron").asString(), ZoneId.of(o.path("zone").asString()));
    }

    /** Microseconds since the epoch, or {@code null} when empty. */
    public static Long micros(java.util.Optional<Instant> instant) {
        return instant.map(Columns::micros).orElse(null);
    }
}

package dev.engram.memory.spi;

import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.ToolOutcome;
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

package dev.engram.memory;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A parsed, validated filter over memory items, in the shape Mem0's users write:
 * {@code {"AND": [{"project": "apollo"}, {"priority": {"gte": 2}}]}}. A bad filter is refused at parse time with
 * the path of the offending part; it is never ignored.
 *
 * <p><b>Grammar.</b> A filter is a JSON object. {@code {"AND": [f, …]}}, {@code {"OR": [f, …]}} and
 * {@code {"NOT": f}} (or {@code {"NOT": [f, …]}}: none of them) combine filters; any other key is a field, whose
 * value is either a JSON value ({@code {"project": "apollo"}}: equal) or an object of operators, all of which must
 * hold: {@code eq}, {@code ne}, {@code in}, {@code nin} (a list), {@code gt}, {@code gte}, {@code lt}, {@code lte}
 * (numbers, or strings compared as text), {@code contains} (a substring of a text field, or an element of a list
 * field) and {@code icontains} (a substring, ignoring case). Several keys in one object must all hold.
 *
 * <p><b>Fields.</b> An item's metadata fields, and {@code created_at} (when it was written; ISO-8601 values such as
 * {@code "2026-05-01T00:00:00Z"}), {@code user_id} and {@code agent_id} (its owner; a note has no agent). A search
 * is always within one scope and its filter only narrows it: a filter on {@code user_id} that names another user
 * matches nothing. A condition on a field the item lacks never holds ({@code ne} and {@code nin} included);
 * {@code NOT} of it does.
 */
public sealed interface MemoryFilter {
    /** The fields a filter reads beside metadata. */
    String CREATED_AT = "created_at";
    String USER_ID = "user_id";
    String AGENT_ID = "agent_id";

    /** Whether an item with these fields (metadata, plus {@code created_at} as an {@link Instant} and its owner) matches. */
    boolean matches(Map<String, ?> fields);

    /** Whether this filter lets everything through. */
    default boolean isEmpty() {
        return this instanceof All all && all.filters().isEmpty();
    }

    /** The filter that lets everything through. */
    static MemoryFilter none() {
        return All.NONE;
    }

    /**
     * Parses a filter; {@code {}} (or a blank string) is {@link #none()}.
     *
     * @throws IllegalArgumentException naming the offending part, if it is not a filter of the grammar above
     */
    static MemoryFilter parse(String json) {
        Checks.notNull(json, "filter");
        if (json.isBlank()) {
            return none();
        }
        JsonNode node;
        try {
            node = FilterParser.MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("the filter is not valid JSON: " + e.getOriginalMessage(), e);
        }
        return parse(node);
    }

    /**
     * A filter given as a map (as a tool's JSON input arrives); see {@link #parse(String)}. An empty map is {@link #none()}.
     *
     * @throws IllegalArgumentException naming the offending part, if it is not a filter
     */
    static MemoryFilter of(Map<String, ?> filter) {
        Checks.notNull(filter, "filter");
        return parse((JsonNode) FilterParser.MAPPER.valueToTree(filter));
    }

    /** Parses a filter already read as JSON; see {@link #parse(String)}. */
    static MemoryFilter parse(JsonNode json) {
        Checks.notNull(json, "filter");
        return FilterParser.filter(json, "filter");
    }

    /** The fields a filter sees of an item. */
    static Map<String, Object> fields(Metadata metadata, Instant createdAt, String userId, Optional<String> agentId) {
        Map<String, Object> out = new java.util.HashMap<>(metadata.values());
        out.put(CREATED_AT, createdAt);
        out.put(USER_ID, userId);
        agentId.ifPresent(a -> out.put(AGENT_ID, a));
        return out;
    }

    /** All of {@code filters} hold (none: everything matches). */
    record All(List<MemoryFilter> filters) implements MemoryFilter {
        static final All NONE = new All(List.of());

        public All {
            filters = List.copyOf(filters);
        }

        @Override
        public boolean matches(Map<String, ?> fields) {
            for (MemoryFilter f : filters) {
                if (!f.matches(fields)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** At least one of {@code filters} holds. */
    record Any(List<MemoryFilter> filters) implements MemoryFilter {
        public Any {
            filters = List.copyOf(filters);
        }

        @Override
        public boolean matches(Map<String, ?> fields) {
            for (MemoryFilter f : filters) {
                if (f.matches(fields)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** {@code filter} does not hold. */
    record Not(MemoryFilter filter) implements MemoryFilter {
        @Override
        public boolean matches(Map<String, ?> fields) {
            return !filter.matches(fields);
        }
    }

    /** The comparisons a condition makes. */
    enum Op {
        EQ, NE, IN, NIN, GT, GTE, LT, LTE, CONTAINS, ICONTAINS;

        /** The name in a filter. */
        public String key() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * {@code field op value}. The value is a JSON value as Jackson reads it (for {@code in} and {@code nin} a list);
     * on {@code created_at} an {@link Instant} (lists of them for {@code in}, {@code nin}).
     */
    record Condition(String field, Op op, Object value) implements MemoryFilter {
        @Override
        public boolean matches(Map<String, ?> fields) {
            if (!fields.containsKey(field)) {
                return false;
            }
            return FilterParser.holds(op, fields.get(field), value);
        }
    }

    /** The names of the operators, for messages. */
    static String operators() {
        List<String> names = new ArrayList<>();
        for (Op op : Op.values()) {
            names.add(op.key());
        }
        return String.join(", ", names);
    }
}

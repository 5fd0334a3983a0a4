package dev.engram.memory;

import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Free metadata of a note or archival entry: a JSON object whose top-level fields a {@link MemoryFilter} can test
 * ({@code {"project": "apollo", "priority": 2}}). Values are JSON values as Jackson reads them (strings, numbers,
 * booleans, lists, maps, null); the map is canonical (read back from its JSON), so metadata compares equal however it
 * was written and wherever it was stored.
 *
 * @param values the fields; at most {@link #MAX_BYTES} bytes as JSON, names not blank, at most 100 characters, and none
 *               of the names a filter reserves ({@link #RESERVED})
 */
public record Metadata(Map<String, Object> values) {
    /** The most bytes metadata may take as JSON. */
    public static final int MAX_BYTES = 8_192;
    /** Names a filter gives another meaning (the item's time and owner, the filter's connectives): not metadata. */
    public static final Set<String> RESERVED = Set.of("created_at", "user_id", "agent_id", "AND", "OR", "NOT");

    private static final JsonMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();
    private static final Metadata EMPTY = new Metadata(Map.of());

    public Metadata {
        Checks.notNull(values, "metadata");
        String json;
        try {
            json = MAPPER.writeValueAsString(values);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("metadata must hold JSON values only: " + e.getOriginalMessage(), e);
        }
        values = read(json);
    }

    /** No metadata. */
    public static Metadata empty() {
        return EMPTY;
    }

    /**
     * Metadata from a JSON object ({@code {}} for none).
     *
     * @throws IllegalArgumentException if it is not a JSON object, is larger than {@link #MAX_BYTES}, or uses a
     *                                  reserved or blank field name
     */
    public static Metadata parse(String json) {
        Checks.notNull(json, "metadata JSON");
        return new Metadata(read(json));
    }

    /** Metadata with these fields. */
    public static Metadata of(Map<String, ?> values) {
        return new Metadata(new LinkedHashMap<>(Checks.notNull(values, "metadata")));
    }

    /** The JSON object, keys sorted. */
    public String json() {
        try {
            return MAPPER.writeValueAsString(values);
        } catch (JacksonException e) {
            throw new IllegalStateException("metadata that was read from JSON cannot be written back", e);
        }
    }

    /** The field's value; empty when there is no such field (a field holding JSON null is present). */
    public Optional<Object> get(String field) {
        return values.containsKey(field) ? Optional.of(values.get(field) == null ? NULL : values.get(field)) : Optional.empty();
    }

    /** Whether there are no fields. */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    /** What {@link #get} returns for a field holding JSON null. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private static Map<String, Object> read(String json) {
        if (json.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw new IllegalArgumentException("metadata is " + json.getBytes(StandardCharsets.UTF_8).length
                    + " bytes as JSON; the most is " + MAX_BYTES + ": keep metadata to a few short fields and put text in the content");
        }
        Map<String, Object> map;
        try {
            map = MAPPER.readValue(json, new TypeReference<LinkedHashMap<String, Object>>() { });
        } catch (JacksonException e) {
            throw new IllegalArgumentException("metadata must be a JSON object such as {\"project\": \"apollo\"}: "
                    + e.getOriginalMessage(), e);
        }
        if (map == null) {
            throw new IllegalArgumentException("metadata must be a JSON object such as {\"project\": \"apollo\"}, not null");
        }
        for (String name : map.keySet()) {
            if (name.isBlank() || name.length() > 100) {
                throw new IllegalArgumentException("metadata field names must be 1 to 100 characters and not blank, got '"
                        + name + "'");
            }
            if (RESERVED.contains(name)) {
                throw new IllegalArgumentException("metadata field '" + name + "' is reserved: filters use it for the item's "
                        + (name.equals(name.toUpperCase()) ? "connectives" : "own time and owner") + "; choose another name");
            }
        }
        return Collections.unmodifiableMap(map);
    }
}

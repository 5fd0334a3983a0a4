package dev.engram.framework;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Checks and copies the free-form metadata of a {@link ToolResult} or {@link ToolOutput}: keys are non-blank strings,
 * values are JSON-safe (a string, number or boolean, or a list or map of them, nested), so that a listener or a server
 * can write them as JSON as they are. The copy is deep and unmodifiable, and keeps the keys' order.
 */
final class ToolMetadata {
    private ToolMetadata() {
    }

    /** An unmodifiable deep copy of {@code metadata}, in its order. */
    static Map<String, Object> copy(Map<String, ?> metadata) {
        Objects.requireNonNull(metadata, "metadata must not be null (use Map.of())");
        if (metadata.isEmpty()) {
            return Map.of();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        metadata.forEach((k, v) -> {
            if (k == null || k.isBlank()) {
                throw new IllegalArgumentException("metadata keys must be non-blank strings, got " + (k == null ? "null" : "'" + k + "'"));
            }
            out.put(k, value(v, k));
        });
        return Collections.unmodifiableMap(out);
    }

    /** {@code metadata} with {@code key} set to {@code value} (checked as {@link #copy} checks). */
    static Map<String, Object> with(Map<String, Object> metadata, String key, Object value) {
        Map<String, Object> changed = new LinkedHashMap<>(metadata);
        changed.put(key, value);
        return copy(changed);
    }

    private static Object value(Object v, String path) {
        if (v instanceof String || v instanceof Boolean || v instanceof Integer || v instanceof Long
                || v instanceof Short || v instanceof Byte || v instanceof java.math.BigInteger || v instanceof java.math.BigDecimal) {
            return v;
        }
        if (v instanceof Double d && Double.isFinite(d) || v instanceof Float f && Float.isFinite(f)) {
            return v;
        }
        if (v instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                out.add(value(list.get(i), path + "[" + i + "]"));
            }
            return Collections.unmodifiableList(out);
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((k, x) -> {
                if (!(k instanceof String s)) {
                    throw new IllegalArgumentException("metadata '" + path + "' has a key that is not a string: " + k);
                }
                out.put(s, value(x, path + "." + s));
            });
            return Collections.unmodifiableMap(out);
        }
        throw new IllegalArgumentException("metadata '" + path + "' must be JSON-safe (a string, a finite number, a boolean, "
                + "or a list or map of them), got " + (v == null ? "null" : v.getClass().getName()));
    }
}

package dev.engram.memory;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import dev.engram.memory.MemoryFilter.All;
import dev.engram.memory.MemoryFilter.Any;
import dev.engram.memory.MemoryFilter.Condition;
import dev.engram.memory.MemoryFilter.Not;
import dev.engram.memory.MemoryFilter.Op;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Parses {@link MemoryFilter}s from JSON and evaluates their conditions. */
final class FilterParser {
    /** The field names of a JSON object, in order. */
    private static List<String> names(JsonNode object) {
        return new ArrayList<>(object.propertyNames());
    }

    static final JsonMapper MAPPER = JsonMapper.builder().build();

    private FilterParser() {
    }

    static MemoryFilter filter(JsonNode node, String path) {
        if (!node.isObject()) {
            throw bad(path, "must be a JSON object such as {\"project\": \"apollo\"}, got " + node.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        List<String> keys = names(node);
        if (keys.isEmpty()) {
            if (path.equals("filter")) {
                return MemoryFilter.none();
            }
            throw bad(path, "is an empty object: give a condition, or leave it out");
        }
        List<MemoryFilter> parts = new ArrayList<>();
        for (String key : keys) {
            JsonNode value = node.get(key);
            String at = path.equals("filter") ? key : path + "." + key;
            switch (key) {
                case "AND", "OR" -> {
                    if (!value.isArray() || value.isEmpty()) {
                        throw bad(at, "must be a non-empty list of filters");
                    }
                    List<MemoryFilter> subs = new ArrayList<>();
                    for (int i = 0; i < value.size(); i++) {
                        subs.add(filter(value.get(i), at + "[" + i + "]"));
                    }
                    parts.add(key.equals("AND") ? new All(subs) : new Any(subs));
                }
                case "NOT" -> {
                    if (value.isArray()) {
                        if (value.isEmpty()) {
                            throw bad(at, "must be a filter or a non-empty list of filters");
                        }
                        List<MemoryFilter> subs = new ArrayList<>();
                        for (int i = 0; i < value.size(); i++) {
                            subs.add(filter(value.get(i), at + "[" + i + "]"));
                        }
                        parts.add(new Not(new Any(subs)));
                    } else {
                        parts.add(new Not(filter(value, at)));
                    }
                }
                default -> parts.addAll(field(key, value, at));
            }
        }
        return parts.size() == 1 ? parts.getFirst() : new All(parts);
    }

    private static List<MemoryFilter> field(String field, JsonNode value, String path) {
        if (field.isBlank()) {
            throw bad(path, "a field name must not be blank");
        }
        if (field.equalsIgnoreCase("and") || field.equalsIgnoreCase("or") || field.equalsIgnoreCase("not")) {
            throw bad(path, "connectives are written in capitals: AND, OR, NOT");
        }
        if (!value.isObject()) {
            return List.of(condition(field, Op.EQ, value, path));
        }
        if (value.isEmpty()) {
            throw bad(path, "has no operator; use one of " + MemoryFilter.operators());
        }
        List<MemoryFilter> out = new ArrayList<>();
        for (String name : names(value)) {
            Op op = null;
            for (Op o : Op.values()) {
                if (o.key().equals(name)) {
                    op = o;
                }
            }
            if (op == null) {
                throw bad(path + "." + name, "unknown operator '" + name + "'; use one of " + MemoryFilter.operators());
            }
            out.add(condition(field, op, value.get(name), path + "." + name));
        }
        return out;
    }

    private static Condition condition(String field, Op op, JsonNode value, String path) {
        boolean time = field.equals(MemoryFilter.CREATED_AT);
        switch (op) {
            case IN, NIN -> {
                if (!value.isArray()) {
                    throw bad(path, "must be a list of values");
                }
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < value.size(); i++) {
                    items.add(scalar(value.get(i), time, path + "[" + i + "]"));
                }
                return new Condition(field, op, List.copyOf(items));
            }
            case GT, GTE, LT, LTE -> {
                if (!value.isNumber() && !value.isString()) {
                    throw bad(path, "compares with a number or a text, got " + value.getNodeType().name().toLowerCase(Locale.ROOT));
                }
                return new Condition(field, op, scalar(value, time, path));
            }
            case CONTAINS, ICONTAINS -> {
                if (time) {
                    throw bad(path, "created_at is a time: compare it with gt, gte, lt, lte");
                }
                if (op == Op.ICONTAINS && !value.isString()) {
                    throw bad(path, "icontains takes a text");
                }
                if (value.isContainer()) {
                    throw bad(path, "takes a single value, not a list or an object");
                }
                return new Condition(field, op, value.isNull() ? Metadata.NULL : MAPPER.convertValue(value, Object.class));
            }
            default -> {
                if (value.isArray()) {
                    throw bad(path, "takes a single value; for a list of values use in or nin");
                }
                return new Condition(field, op, scalar(value, time, path));
            }
        }
    }

    private static Object scalar(JsonNode value, boolean time, String path) {
        if (time) {
            if (!value.isString()) {
                throw bad(path, "created_at is compared with an ISO-8601 time such as \"2026-05-01T00:00:00Z\"");
            }
            try {
                return Instant.parse(value.asString());
            } catch (DateTimeParseException e) {
                throw bad(path, "'" + value.asString() + "' is not an ISO-8601 time such as \"2026-05-01T00:00:00Z\"");
            }
        }
        if (value.isContainer()) {
            throw bad(path, "takes a text, a number, a boolean or null, not a list or an object");
        }
        return value.isNull() ? Metadata.NULL : MAPPER.convertValue(value, Object.class);
    }

    private static IllegalArgumentException bad(String path, String what) {
        return new IllegalArgumentException("filter part '" + path + "' " + what);
    }

    static boolean holds(Op op, Object actual, Object expected) {
        Object a = actual == null ? Metadata.NULL : actual;
        return switch (op) {
            case EQ -> same(a, expected);
            case NE -> !same(a, expected);
            case IN -> ((List<?>) expected).stream().anyMatch(e -> same(a, e));
            case NIN -> ((List<?>) expected).stream().noneMatch(e -> same(a, e));
            case GT -> compare(a, expected) > 0;
            case GTE -> compare(a, expected) >= 0;
            case LT -> compare(a, expected) < 0 && compare(a, expected) != NOT_COMPARABLE;
            case LTE -> compare(a, expected) <= 0 && compare(a, expected) != NOT_COMPARABLE;
            case CONTAINS -> a instanceof String s ? expected instanceof String e && s.contains(e)
                    : a instanceof List<?> l && l.stream().anyMatch(x -> same(x == null ? Metadata.NULL : x, expected));
            case ICONTAINS -> a instanceof String s && s.toLowerCase(Locale.ROOT)
                    .contains(((String) expected).toLowerCase(Locale.ROOT));
        };
    }

    private static final int NOT_COMPARABLE = Integer.MIN_VALUE;

    private static boolean same(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString())) == 0;
        }
        return a.equals(b);
    }

    /** Numbers with numbers, texts with texts, times with times; {@link #NOT_COMPARABLE} otherwise. */
    private static int compare(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return Integer.signum(new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString())));
        }
        if (a instanceof String x && b instanceof String y) {
            return Integer.signum(x.compareTo(y));
        }
        if (a instanceof Instant x && b instanceof Instant y) {
            return Integer.signum(x.compareTo(y));
        }
        return NOT_COMPARABLE;
    }
}

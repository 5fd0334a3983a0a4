package dev.engram.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Python type annotations as JSON Schema, as Letta's {@code type_to_json_schema_type} maps them: an annotation is read
 * into a small tree (names, {@code typing.} names, subscripts, {@code |} unions, {@code None}, quoted forward
 * references, {@code Literal} values) and mapped to a schema.
 */
final class PythonTypes {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Map<String, String> SIMPLE = Map.of("int", "integer", "str", "string", "bool", "boolean",
            "float", "number");

    /** A type: a name with arguments, or a literal value (a string's text, a number, {@code True}...). */
    record Type(String name, List<Type> args, boolean literal) {
        static Type named(String name, List<Type> args) {
            return new Type(name, List.copyOf(args), false);
        }
    }

    private final String text;
    private int at;

    private PythonTypes(String text) {
        this.text = text;
    }

    /**
     * The annotation's tree.
     *
     * @throws IllegalArgumentException if it is not a type expression this reader knows
     */
    static Type parse(String annotation) {
        PythonTypes p = new PythonTypes(annotation.strip());
        Type t = p.union();
        p.space();
        if (p.at != p.text.length()) {
            throw new IllegalArgumentException("its annotation '" + annotation + "' cannot be read");
        }
        return t;
    }

    /** Whether {@code type} admits {@code None} ({@code Optional[T]}, {@code Union[T, None]}, {@code T | None}). */
    static boolean isOptional(Type type) {
        return !type.literal() && (type.name().equals("Optional")
                || type.name().equals("Union") && type.args().stream().anyMatch(PythonTypes::isNone));
    }

    /**
     * The JSON schema of {@code type}.
     *
     * @throws IllegalArgumentException for a type without a JSON equivalent, saying which
     */
    static ObjectNode schema(Type type) {
        ObjectNode out = JSON.createObjectNode();
        String name = type.name();
        List<Type> args = type.args();
        if (type.literal()) {
            throw new IllegalArgumentException("a literal value is not a type");
        }
        if (name.equals("Optional") || name.equals("Union")) {
            List<Type> others = args.stream().filter(a -> !isNone(a)).toList();
            if (others.size() == 1 && (name.equals("Optional") || others.size() < args.size())) {
                return schema(others.getFirst());
            }
            throw new IllegalArgumentException("a general Union has no JSON schema type here; use one type, or Optional[T]");
        }
        if (SIMPLE.containsKey(name) && args.isEmpty()) {
            return out.put("type", SIMPLE.get(name));
        }
        if (isNone(type)) {
            return out.put("type", "null");
        }
        switch (name) {
            case "list", "List" -> {
                out.put("type", "array");
                out.set("items", args.isEmpty() ? JSON.createObjectNode().put("type", "string") : schema(args.getFirst()));
                return out;
            }
            case "dict", "Dict" -> {
                out.put("type", "object");
                if (args.size() == 2) {
                    if (!args.getFirst().name().equals("str")) {
                        throw new IllegalArgumentException("a dictionary's keys must be str to be a JSON object");
                    }
                    out.set("additionalProperties", schema(args.get(1)));
                }
                return out;
            }
            case "Literal" -> {
                ArrayNode values = JSON.createArrayNode();
                String kind = "string";
                for (Type v : args) {
                    if (!v.literal()) {
                        throw new IllegalArgumentException("Literal takes values, got " + v.name());
                    }
                    if (v.name().startsWith("\"")) {
                        values.add(v.name().substring(1));
                    } else if (v.name().equals("True") || v.name().equals("False")) {
                        values.add(v.name().equals("True"));
                        kind = "boolean";
                    } else if (v.name().matches("-?\\d+")) {
                        values.add(Long.parseLong(v.name()));
                        kind = "integer";
                    } else {
                        values.add(Double.parseDouble(v.name()));
                        kind = "number";
                    }
                }
                out.put("type", kind);
                out.set("enum", values);
                return out;
            }
            case "tuple", "Tuple" -> {
                if (args.isEmpty()) {
                    throw new IllegalArgumentException("a Tuple must name its elements' types");
                }
                if (args.size() == 2 && args.get(1).name().equals("...")) {
                    throw new IllegalArgumentException("variable-length tuples (Tuple[T, ...]) are not supported; use List[T]");
                }
                out.put("type", "array");
                ArrayNode prefix = out.putArray("prefixItems");
                args.forEach(a -> prefix.add(schema(a)));
                out.put("minItems", args.size());
                out.put("maxItems", args.size());
                return out;
            }
            default -> throw new IllegalArgumentException("type '" + name + "' has no corresponding JSON schema type (use "
                    + "int, float, str, bool, list, dict, Optional, Literal or Tuple; a class of the source, such as a "
                    + "Pydantic model, needs the tool's json_schema)");
        }
    }

    private static boolean isNone(Type t) {
        return !t.literal() && (t.name().equals("None") || t.name().equals("NoneType"));
    }

    private Type union() {
        List<Type> members = new ArrayList<>();
        members.add(primary());
        space();
        while (at < text.length() && text.charAt(at) == '|') {
            at++;
            members.add(primary());
            space();
        }
        return members.size() == 1 ? members.getFirst() : Type.named("Union", members);
    }

    private Type primary() {
        space();
        if (at >= text.length()) {
            throw new IllegalArgumentException("its annotation '" + text + "' ends too soon");
        }
        char c = text.charAt(at);
        if (c == '"' || c == '\'') {
            int end = text.indexOf(c, at + 1);
            if (end < 0) {
                throw new IllegalArgumentException("its annotation '" + text + "' has an unclosed string");
            }
            String inner = text.substring(at + 1, end);
            at = end + 1;
            return new Type("\"" + inner, List.of(), true);
        }
        if (text.startsWith("...", at)) {
            at += 3;
            return Type.named("...", List.of());
        }
        int start = at;
        while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || "_.-".indexOf(text.charAt(at)) >= 0)) {
            at++;
        }
        String word = text.substring(start, at);
        if (word.isEmpty()) {
            throw new IllegalArgumentException("its annotation '" + text + "' cannot be read at '" + text.substring(start) + "'");
        }
        if (word.matches("-?\\d+(\\.\\d+)?")) {
            return new Type(word, List.of(), true);
        }
        String name = word.startsWith("typing.") ? word.substring("typing.".length())
                : word.startsWith("typing_extensions.") ? word.substring("typing_extensions.".length()) : word;
        space();
        List<Type> args = new ArrayList<>();
        if (at < text.length() && text.charAt(at) == '[') {
            at++;
            boolean literal = name.equals("Literal");
            do {
                space();
                Type arg = literal ? literalValue() : union();
                args.add(arg);
                space();
            } while (at < text.length() && text.charAt(at) == ',' && ++at > 0);
            space();
            if (at >= text.length() || text.charAt(at) != ']') {
                throw new IllegalArgumentException("its annotation '" + text + "' has no closing ']'");
            }
            at++;
        }
        return Type.named(name, args);
    }

    /** A value of {@code Literal[...]}: a string, a number, {@code True}, {@code False} or {@code None}. */
    private Type literalValue() {
        Type t = primary();
        if (t.literal() || !t.args().isEmpty()) {
            return t;
        }
        if (t.name().equals("True") || t.name().equals("False")) {
            return new Type(t.name(), List.of(), true);
        }
        throw new IllegalArgumentException("Literal takes values (strings, numbers, True, False), got '" + t.name() + "'");
    }

    private void space() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }
}

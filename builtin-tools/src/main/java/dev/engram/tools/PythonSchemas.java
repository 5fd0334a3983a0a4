package dev.engram.tools;

import dev.engram.framework.ToolDefinitionException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON schema of a tool written as a Python function, derived as Letta derives it, by reading the source (nothing
 * runs): the function's name; its description from the docstring (the first line, then the rest before the first
 * section, then an {@code Examples:} section); one property per parameter typed from its annotation ({@code int},
 * {@code str}, {@code float}, {@code bool}, {@code list}/{@code List[T]}, {@code dict}/{@code Dict[str, T]},
 * {@code Optional[T]}, {@code T | None}, {@code Literal[...]}, {@code Tuple[...]}) and described from the docstring's
 * Google-style {@code Args:} section; a parameter without default that is not optional is required. Letta's reserved
 * parameters ({@code self}, {@code agent_state}) and {@code *args}/{@code **kwargs} are left out.
 *
 * <p>As Letta, it refuses a function without docstring, a parameter without annotation or without description, a
 * general {@code Union}, and types without a JSON equivalent; unlike Letta it types {@code Dict[str, T]} (Letta refuses
 * it) and {@code T | None}, and picks the last top-level function (Letta the last of every nesting level). Pydantic
 * models as arguments are not read: give such a tool's {@code json_schema}.
 */
public final class PythonSchemas {
    /** Parameters Letta fills in itself, never shown to the model. */
    public static final Set<String> RESERVED = Set.of("self", "agent_state");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern TITLE = Pattern.compile("^(Args|Arguments|Parameters|Params|Attributes|Returns|Return|"
            + "Yields|Yield|Raises|Raise|Exceptions|Except|Examples|Example|Warns|Warning|Warnings|Note|Notes|Todo|"
            + "See Also|References|Other Parameters|Keyword Args|Keyword Arguments):[ \\t]*$", Pattern.MULTILINE);
    private static final Set<String> ARGS_TITLES = Set.of("Args", "Arguments", "Parameters", "Params");
    private static final Pattern TYPED_ARG = Pattern.compile("^\\s*(\\S+?)\\s*\\((.*)\\)\\s*$");

    private PythonSchemas() {
    }

    /** As {@link #derive(String, String)} for the source's last top-level function. */
    public static ObjectNode derive(String source) {
        return derive(PythonSource.function(Objects.requireNonNull(source, "source"), Optional.empty()));
    }

    /**
     * Letta's function schema ({@code name}, {@code description}, {@code parameters}) of the top-level function
     * {@code function} of {@code source}.
     *
     * @throws ToolDefinitionException saying what keeps the schema from being derived (and that a {@code json_schema}
     *                                 may be given instead)
     */
    public static ObjectNode derive(String source, String function) {
        return derive(PythonSource.function(Objects.requireNonNull(source, "source"),
                Optional.of(Objects.requireNonNull(function, "function"))));
    }

    /** The names of the top-level functions {@code source} defines, in order. */
    public static List<String> functions(String source) {
        return PythonSource.functionNames(Objects.requireNonNull(source, "source"));
    }

    private static ObjectNode derive(PythonSource.Function f) {
        String doc = f.docstring().orElseThrow(() -> refused(f, "has no docstring: describe it in a Google-style "
                + "docstring with an Args: section"));
        Docstring d = Docstring.parse(doc);
        ObjectNode schema = JSON.createObjectNode();
        schema.put("name", f.name());
        schema.put("description", d.description());
        ObjectNode parameters = schema.putObject("parameters");
        parameters.put("type", "object");
        ObjectNode properties = parameters.putObject("properties");
        ArrayNode required = parameters.putArray("required");
        for (PythonSource.Param p : f.params()) {
            if (p.variadic() || RESERVED.contains(p.name())) {
                continue;
            }
            if (p.annotation().isEmpty()) {
                throw refused(f, "parameter '" + p.name() + "' lacks a type annotation (write '" + p.name() + ": str', ...)");
            }
            String description = d.args().get(p.name());
            if (description == null || description.isBlank()) {
                throw refused(f, "parameter '" + p.name() + "' lacks a description in the docstring's Args: section");
            }
            PythonTypes.Type type;
            try {
                type = PythonTypes.parse(p.annotation());
            } catch (IllegalArgumentException e) {
                throw refused(f, "parameter '" + p.name() + "': " + e.getMessage());
            }
            ObjectNode property;
            try {
                property = PythonTypes.schema(type);
            } catch (IllegalArgumentException e) {
                throw refused(f, "parameter '" + p.name() + "' (" + p.annotation() + "): " + e.getMessage());
            }
            property.put("description", description);
            properties.set(p.name(), property);
            if (p.defaultValue().isEmpty() && !PythonTypes.isOptional(type)) {
                required.add(p.name());
            }
        }
        return schema;
    }

    private static ToolDefinitionException refused(PythonSource.Function f, String why) {
        return new ToolDefinitionException("No JSON schema can be derived from function '" + f.name() + "': it " + why
                + ". Fix the source, or give the tool's json_schema.");
    }

    /** A Google-style docstring: its description and its {@code Args:} descriptions by name. */
    record Docstring(String description, Map<String, String> args) {
        static Docstring parse(String raw) {
            String text = cleandoc(raw);
            Matcher m = TITLE.matcher(text);
            List<int[]> sections = new ArrayList<>();
            while (m.find()) {
                sections.add(new int[] {m.start(), m.end()});
            }
            String described = sections.isEmpty() ? text : text.substring(0, sections.getFirst()[0]);
            String[] parts = described.split("\n", 2);
            String shortText = parts[0].strip();
            String longText = parts.length > 1 ? parts[1].strip() : "";
            String description = !shortText.isEmpty() && !longText.isEmpty() ? shortText + "\n\n" + longText
                    : !shortText.isEmpty() ? shortText : !longText.isEmpty() ? longText : "No description available";
            Optional<String> examples = examples(raw);
            if (examples.isPresent() && !description.contains("Examples:")) {
                description = description + "\n\n" + examples.get();
            }
            Map<String, String> args = new LinkedHashMap<>();
            for (int s = 0; s < sections.size(); s++) {
                String title = text.substring(sections.get(s)[0], sections.get(s)[1]).strip();
                title = title.substring(0, title.length() - 1);
                if (ARGS_TITLES.contains(title)) {
                    int end = s + 1 < sections.size() ? sections.get(s + 1)[0] : text.length();
                    items(text.substring(sections.get(s)[1], end), args);
                }
            }
            return new Docstring(description, args);
        }

        /** The items of an {@code Args:} section: each starts at the section's first indentation. */
        private static void items(String chunk, Map<String, String> args) {
            List<String> lines = chunk.lines().toList();
            String indent = lines.stream().filter(l -> !l.isBlank()).findFirst()
                    .map(l -> l.substring(0, l.length() - l.stripLeading().length())).orElse("");
            List<String> items = new ArrayList<>();
            for (String line : lines) {
                boolean starts = !line.isBlank() && line.startsWith(indent)
                        && (line.length() > indent.length() && !Character.isWhitespace(line.charAt(indent.length())));
                if (starts || items.isEmpty()) {
                    items.add(line.length() >= indent.length() && starts ? line.substring(indent.length()) : line.strip());
                } else {
                    items.set(items.size() - 1, items.getLast() + "\n" + line);
                }
            }
            for (String item : items) {
                int colon = item.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String before = item.substring(0, colon);
                String desc = item.substring(colon + 1);
                if (desc.startsWith(" ")) {
                    desc = desc.substring(1);
                }
                if (desc.contains("\n")) {
                    String[] firstRest = desc.split("\n", 2);
                    desc = firstRest[0] + "\n" + cleandoc(firstRest[1]);
                }
                desc = desc.replaceAll("^\n+|\n+$", "").strip();
                Matcher typed = TYPED_ARG.matcher(before);
                String name = typed.matches() ? typed.group(1) : before.strip();
                args.putIfAbsent(name, desc);
            }
        }

        /** Python's {@code inspect.cleandoc}. */
        static String cleandoc(String doc) {
            List<String> lines = new ArrayList<>(doc.replace("\t", "        ").lines().toList());
            if (lines.isEmpty()) {
                return "";
            }
            int margin = Integer.MAX_VALUE;
            for (String l : lines.subList(1, lines.size())) {
                if (!l.isBlank()) {
                    margin = Math.min(margin, l.length() - l.stripLeading().length());
                }
            }
            lines.set(0, lines.getFirst().stripLeading());
            for (int i = 1; i < lines.size(); i++) {
                String l = lines.get(i);
                lines.set(i, margin != Integer.MAX_VALUE && l.length() >= margin ? l.substring(margin) : l.stripLeading());
            }
            while (!lines.isEmpty() && lines.getFirst().isBlank()) {
                lines.removeFirst();
            }
            while (!lines.isEmpty() && lines.getLast().isBlank()) {
                lines.removeLast();
            }
            return String.join("\n", lines);
        }

        /** Letta's {@code extract_examples_section}, on the docstring as written. */
        private static Optional<String> examples(String doc) {
            if (!doc.contains("Examples:")) {
                return Optional.empty();
            }
            List<String> out = new ArrayList<>();
            boolean in = false;
            for (String line : doc.strip().lines().toList()) {
                String stripped = line.strip();
                if (!in && stripped.startsWith("Examples:")) {
                    in = true;
                    out.add(line);
                    continue;
                }
                if (in) {
                    if (!stripped.isEmpty() && !line.startsWith(" ") && stripped.endsWith(":")) {
                        break;
                    }
                    out.add(line);
                }
            }
            String joined = String.join("\n", out).strip();
            return joined.isEmpty() ? Optional.empty() : Optional.of(joined);
        }
    }
}

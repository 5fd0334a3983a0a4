package dev.engram.framework.processor;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.RecordComponentElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.tools.Diagnostic;

/**
 * Turns {@code @Tool} methods into tool declarations at compile time: for each class with such
 * methods it writes {@code <Class>_Tools} with {@code static List<DynamicTool> of(<Class> target)}.
 * The tool name is the method name, the description its javadoc, the JSON Schema of the arguments
 * comes from the parameter types and their {@code @param} javadoc. An unsupported signature is a
 * compile error naming the method and the parameter.
 *
 * <p>Dependency-free on purpose (it runs inside javac): it checks the parameter types here and writes
 * them into the generated class, whose schema is then generated at run time by {@code InputSchemas},
 * the same victools generator typed tools use, so a type maps to one schema however it is declared.
 */
@SupportedAnnotationTypes(ToolProcessor.TOOL)
public final class ToolProcessor extends AbstractProcessor {
    static final String TOOL = "dev.engram.framework.Tool";
    private static final String CONTEXT = "dev.engram.framework.ToolContext";
    private static final String FRAMEWORK = "dev.engram.framework.";
    private static final Pattern NAME = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");
    private static final Pattern PARAM_TAG = Pattern.compile("^@param\\s+(\\S+)\\s*(.*)$", Pattern.DOTALL);
    private static final Pattern INLINE_TAG = Pattern.compile("\\{@(?:code|link|linkplain|literal|value)\\s+([^}]*)}");

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        TypeElement toolAnnotation = processingEnv.getElementUtils().getTypeElement(TOOL);
        if (toolAnnotation == null) {
            return false;
        }
        Map<TypeElement, List<ExecutableElement>> byType = new LinkedHashMap<>();
        for (Element e : round.getElementsAnnotatedWith(toolAnnotation)) {
            if (e.getKind() != ElementKind.METHOD) {
                continue;
            }
            byType.computeIfAbsent((TypeElement) e.getEnclosingElement(), k -> new ArrayList<>()).add((ExecutableElement) e);
        }
        byType.forEach(this::processType);
        return true;
    }

    private void processType(TypeElement type, List<ExecutableElement> methods) {
        if (!checkType(type)) {
            return;
        }
        List<ToolSpec> specs = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (ExecutableElement method : methods) {
            ToolSpec spec = analyse(method);
            if (spec == null) {
                continue;
            }
            if (!names.add(spec.name)) {
                error(method, "@Tool method " + signature(method) + ": another @Tool method of "
                        + type.getSimpleName() + " is already named '" + spec.name + "'; set @Tool(name = ...)");
                continue;
            }
            specs.add(spec);
        }
        if (specs.size() == methods.size()) {
            write(type, specs);
        }
    }

    private boolean checkType(TypeElement type) {
        if (type.getModifiers().contains(Modifier.PRIVATE)) {
            error(type, "@Tool methods need a non-private enclosing type; " + type.getQualifiedName() + " is private");
            return false;
        }
        if (type.getNestingKind() == NestingKind.LOCAL || type.getNestingKind() == NestingKind.ANONYMOUS) {
            error(type, "@Tool methods must be declared in a top-level or static nested type");
            return false;
        }
        if (type.getNestingKind() == NestingKind.MEMBER && !type.getModifiers().contains(Modifier.STATIC)
                && type.getKind() == ElementKind.CLASS) {
            error(type, "@Tool methods must be declared in a top-level or static nested type; make "
                    + type.getSimpleName() + " static");
            return false;
        }
        if (!type.getTypeParameters().isEmpty()) {
            error(type, "@Tool methods are not supported in generic type " + type.getQualifiedName());
            return false;
        }
        return true;
    }

    /** Everything needed to generate one tool, or null after reporting an error. */
    private ToolSpec analyse(ExecutableElement method) {
        String where = "@Tool method " + signature(method);
        boolean ok = true;
        if (method.getModifiers().contains(Modifier.PRIVATE)) {
            error(method, where + " must not be private: the generated class calls it");
            ok = false;
        }
        if (!method.getTypeParameters().isEmpty()) {
            error(method, where + " is generic; a tool's parameter types must be fixed, remove the type parameters");
            return null;
        }
        AnnotationMirror tool = annotation(method, TOOL);
        String name = stringValue(tool, "name");
        if (name.isEmpty()) {
            name = method.getSimpleName().toString();
        }
        if (!NAME.matcher(name).matches()) {
            error(method, where + ": tool name '" + name + "' is invalid; use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'");
            ok = false;
        }
        long timeout = tool == null ? 30_000 : ((Number) value(tool, "timeoutMillis", 30_000L)).longValue();
        if (timeout <= 0) {
            error(method, where + ": timeoutMillis must be positive, got " + timeout);
            ok = false;
        }
        Javadoc doc = Javadoc.parse(processingEnv.getElementUtils().getDocComment(method));
        String description = stringValue(tool, "description");
        if (description.isBlank()) {
            description = doc.main;
        }
        if (description.isBlank()) {
            error(method, where + " has no description: write a javadoc comment for it or set @Tool(description = ...)");
            ok = false;
        }

        List<Param> params = new ArrayList<>();
        for (VariableElement p : method.getParameters()) {
            String javaName = p.getSimpleName().toString();
            boolean last = p == method.getParameters().get(method.getParameters().size() - 1);
            if (method.isVarArgs() && last) {
                error(p, where + ": varargs parameter '" + javaName + "' is not supported; take a List instead");
                ok = false;
                continue;
            }
            if (isType(p.asType(), CONTEXT)) {
                params.add(new Param(javaName, null, p.asType(), true, null));
                continue;
            }
            try {
                check(p.asType(), new ArrayDeque<>());
            } catch (Unsupported u) {
                error(p, where + ": parameter '" + javaName + "' has type " + p.asType() + ", which @Tool cannot map to "
                        + "JSON Schema" + (u.getMessage() == null ? "" : " (" + u.getMessage() + ")")
                        + "; use String, boolean, a number, an enum, a List, a Set, an array or a record");
                ok = false;
                continue;
            }
            params.add(new Param(javaName, snakeCase(javaName), p.asType(), false, doc.params.get(javaName)));
        }
        if (!ok) {
            return null;
        }
        String tier = enumValue(tool, "tier", "SIDE_EFFECTING");
        String truncation = enumValue(tool, "truncation", "KEEP_HEAD");
        return new ToolSpec(method, name, description, tier, timeout, truncation, params);
    }

    /**
     * Refuses, at compile time, a parameter type that has no JSON Schema. The schema itself is generated
     * at run time from the parameter types, by the same generator as typed tools' ({@code InputSchemas}).
     */
    private void check(TypeMirror type, Deque<String> seen) throws Unsupported {
        switch (type.getKind()) {
            case BOOLEAN, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, CHAR:
                return;
            case ARRAY:
                check(((ArrayType) type).getComponentType(), seen);
                return;
            case DECLARED:
                checkDeclared((DeclaredType) type, seen);
                return;
            default:
                throw new Unsupported(null);
        }
    }

    private void checkDeclared(DeclaredType type, Deque<String> seen) throws Unsupported {
        TypeElement element = (TypeElement) type.asElement();
        String qualified = element.getQualifiedName().toString();
        switch (qualified) {
            case "java.lang.String", "java.lang.Character", "java.lang.Boolean", "java.lang.Byte", "java.lang.Short",
                    "java.lang.Integer", "java.lang.Long", "java.math.BigInteger", "java.lang.Float", "java.lang.Double",
                    "java.math.BigDecimal":
                return;
            case "java.util.List", "java.util.Collection", "java.util.Set":
                if (type.getTypeArguments().size() != 1) {
                    throw new Unsupported("a raw collection; give its element type");
                }
                check(type.getTypeArguments().get(0), seen);
                return;
            default:
                break;
        }
        if (element.getKind() == ElementKind.ENUM) {
            return;
        }
        if (element.getKind() == ElementKind.RECORD) {
            if (!element.getTypeParameters().isEmpty()) {
                throw new Unsupported("generic record " + qualified);
            }
            if (seen.contains(qualified)) {
                throw new Unsupported("record " + qualified + " contains itself; tool schemas must not be recursive");
            }
            seen.push(qualified);
            for (RecordComponentElement component : element.getRecordComponents()) {
                check(component.asType(), seen);
            }
            seen.pop();
            return;
        }
        throw new Unsupported(null);
    }

    private void write(TypeElement type, List<ToolSpec> specs) {
        String pkg = processingEnv.getElementUtils().getPackageOf(type).getQualifiedName().toString();
        String binary = processingEnv.getElementUtils().getBinaryName(type).toString();
        String simpleBinary = pkg.isEmpty() ? binary : binary.substring(pkg.length() + 1);
        String generated = simpleBinary.replace('$', '_') + "_Tools";
        String target = type.getQualifiedName().toString();

        StringBuilder src = new StringBuilder();
        if (!pkg.isEmpty()) {
            src.append("package ").append(pkg).append(";\n\n");
        }
        src.append("/** The {@code @Tool} methods of {@link ").append(target).append("} as tools. Generated: do not edit. */\n");
        src.append("@javax.annotation.processing.Generated(\"").append(ToolProcessor.class.getName()).append("\")\n");
        src.append("public final class ").append(generated).append(" {\n");
        src.append("    private ").append(generated).append("() {\n    }\n\n");
        src.append("    /** The tools, bound to {@code target} for instance methods. */\n");
        src.append("    public static java.util.List<").append(FRAMEWORK).append("DynamicTool> of(")
                .append(target).append(" target) {\n");
        src.append("        java.util.Objects.requireNonNull(target, \"target\");\n");
        src.append("        return java.util.List.of(");
        for (int i = 0; i < specs.size(); i++) {
            src.append(i == 0 ? "\n" : ",\n");
            appendTool(src, target, specs.get(i));
        }
        src.append(");\n    }\n}\n");

        try (Writer w = processingEnv.getFiler().createSourceFile(
                pkg.isEmpty() ? generated : pkg + "." + generated, type).openWriter()) {
            w.write(src.toString());
        } catch (IOException e) {
            error(type, "could not write the generated tools of " + target + ": " + e.getMessage());
        }
    }

    private void appendTool(StringBuilder src, String target, ToolSpec spec) {
        ExecutableElement m = spec.method;
        boolean isStatic = m.getModifiers().contains(Modifier.STATIC);
        boolean isVoid = m.getReturnType().getKind() == TypeKind.VOID;
        StringBuilder call = new StringBuilder(isStatic ? target : "target").append('.').append(m.getSimpleName()).append('(');
        for (int i = 0; i < spec.params.size(); i++) {
            Param p = spec.params.get(i);
            if (i > 0) {
                call.append(", ");
            }
            if (p.context) {
                call.append("context");
            } else {
                call.append(FRAMEWORK).append("GeneratedTools.arg(arguments, ").append(JsonText.javaString(p.jsonName))
                        .append(", ").append(typeToken(p.type)).append(')');
            }
        }
        call.append(')');
        src.append("            ").append(FRAMEWORK).append("GeneratedTools.tool(")
                .append(JsonText.javaString(spec.name)).append(",\n                ")
                .append(JsonText.javaString(spec.description)).append(",\n                ")
                .append(parameterList(spec)).append(",\n                ")
                .append(FRAMEWORK).append("SafetyTier.").append(spec.tier).append(", ")
                .append(spec.timeoutMillis).append("L, ")
                .append(FRAMEWORK).append("Truncation.").append(spec.truncation).append(",\n                ")
                .append("(arguments, context) -> ");
        if (isVoid) {
            src.append("{\n                    ").append(call).append(";\n                    return null;\n                })");
        } else {
            src.append(call).append(')');
        }
    }

    /** {@code java.util.List.of(GeneratedTools.param("json_name", type, "description"), ...)}: the schema's inputs. */
    private String parameterList(ToolSpec spec) {
        StringBuilder list = new StringBuilder("java.util.List.of(");
        boolean first = true;
        for (Param p : spec.params) {
            if (p.context) {
                continue;
            }
            if (!first) {
                list.append(",\n                    ");
            }
            first = false;
            list.append(FRAMEWORK).append("GeneratedTools.param(").append(JsonText.javaString(p.jsonName)).append(", ")
                    .append(reflectType(p.type)).append(", ")
                    .append(p.description == null || p.description.isBlank() ? "null" : JsonText.javaString(p.description))
                    .append(')');
        }
        return list.append(')').toString();
    }

    /** A {@code java.lang.reflect.Type} expression for {@code type}. */
    private String reflectType(TypeMirror type) {
        String token = typeToken(type);
        return token.startsWith("new ") ? token + ".getType()" : token;
    }

    /** {@code int.class}, {@code com.x.Item.class}, or a TypeReference for parameterised types. */
    private String typeToken(TypeMirror type) {
        if (type.getKind() == TypeKind.DECLARED && !((DeclaredType) type).getTypeArguments().isEmpty()) {
            return "new tools.jackson.core.type.TypeReference<" + type + ">() { }";
        }
        TypeMirror erased = processingEnv.getTypeUtils().erasure(type);
        return erased + ".class";
    }

    private boolean isType(TypeMirror type, String qualifiedName) {
        return type.getKind() == TypeKind.DECLARED
                && ((TypeElement) ((DeclaredType) type).asElement()).getQualifiedName().contentEquals(qualifiedName);
    }

    private static AnnotationMirror annotation(Element element, String qualifiedName) {
        if (element == null) {
            return null;
        }
        for (AnnotationMirror m : element.getAnnotationMirrors()) {
            if (((TypeElement) m.getAnnotationType().asElement()).getQualifiedName().contentEquals(qualifiedName)) {
                return m;
            }
        }
        return null;
    }

    private static Object value(AnnotationMirror mirror, String name, Object fallback) {
        if (mirror == null) {
            return fallback;
        }
        for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e : mirror.getElementValues().entrySet()) {
            if (e.getKey().getSimpleName().contentEquals(name)) {
                return e.getValue().getValue();
            }
        }
        return fallback;
    }

    private static String stringValue(AnnotationMirror mirror, String name) {
        return String.valueOf(value(mirror, name, ""));
    }

    private static String enumValue(AnnotationMirror mirror, String name, String fallback) {
        Object v = value(mirror, name, null);
        return v == null ? fallback : ((VariableElement) v).getSimpleName().toString();
    }

    private static String signature(ExecutableElement method) {
        StringBuilder sb = new StringBuilder(method.getEnclosingElement().getSimpleName()).append('.')
                .append(method.getSimpleName()).append('(');
        for (int i = 0; i < method.getParameters().size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(method.getParameters().get(i).getSimpleName());
        }
        return sb.append(')').toString();
    }

    private void error(Element element, String message) {
        processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, message, element);
    }

    /** Jackson's SNAKE_CASE translation, so generated schemas match how the runtime mapper reads records. */
    static String snakeCase(String input) {
        StringBuilder result = new StringBuilder(input.length() * 2);
        boolean wasPrevTranslated = false;
        for (int i = 0; i < input.length(); i++) {
            char c = input.charAt(i);
            if (i > 0 || c != '_') {
                if (Character.isUpperCase(c)) {
                    if (!wasPrevTranslated && !result.isEmpty() && result.charAt(result.length() - 1) != '_') {
                        result.append('_');
                    }
                    c = Character.toLowerCase(c);
                    wasPrevTranslated = true;
                } else {
                    wasPrevTranslated = false;
                }
                result.append(c);
            }
        }
        return result.toString();
    }

    private record Param(String javaName, String jsonName, TypeMirror type, boolean context, String description) {
    }

    private record ToolSpec(ExecutableElement method, String name, String description, String tier,
            long timeoutMillis, String truncation, List<Param> params) {
    }

    private static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(String detail) {
            super(detail, null, false, false);
        }
    }

    /** The main description and the {@code @param} descriptions of a javadoc comment. */
    private record Javadoc(String main, Map<String, String> params) {
        static Javadoc parse(String comment) {
            if (comment == null) {
                return new Javadoc("", Map.of());
            }
            StringBuilder main = new StringBuilder();
            Map<String, String> params = new LinkedHashMap<>();
            StringBuilder tag = null;
            List<String> tags = new ArrayList<>();
            for (String line : comment.split("\\R")) {
                String trimmed = line.strip();
                if (trimmed.startsWith("@")) {
                    if (tag != null) {
                        tags.add(tag.toString());
                    }
                    tag = new StringBuilder(trimmed);
                } else if (tag != null) {
                    tag.append(' ').append(trimmed);
                } else {
                    main.append(trimmed).append('\n');
                }
            }
            if (tag != null) {
                tags.add(tag.toString());
            }
            for (String t : tags) {
                Matcher m = PARAM_TAG.matcher(t);
                if (m.matches()) {
                    params.put(m.group(1), clean(m.group(2)));
                }
            }
            return new Javadoc(clean(main.toString()), params);
        }

        /** Inline tags to their text, HTML paragraph tags to blank lines, runs of spaces folded. */
        private static String clean(String text) {
            String s = INLINE_TAG.matcher(text).replaceAll(r -> Matcher.quoteReplacement(r.group(1).strip()));
            s = s.replaceAll("(?i)<p>", "\n\n").replaceAll("(?i)</?(b|i|em|strong|code)>", "");
            StringBuilder out = new StringBuilder();
            for (String paragraph : s.strip().split("\\n\\s*\\n")) {
                if (!out.isEmpty()) {
                    out.append("\n\n");
                }
                out.append(paragraph.strip().replaceAll("\\s+", " "));
            }
            return out.toString().strip();
        }
    }

    /** Minimal JSON and Java string literal writing. */
    static final class JsonText {
        private JsonText() {
        }

        static String quote(String s) {
            StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
            return sb.append('"').toString();
        }

        /** A Java string literal; non-ASCII as unicode escapes so the generated file's encoding never matters. */
        static String javaString(String s) {
            StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (c < 0x20 || c > 0x7e) {
                            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
            return sb.append('"').toString();
        }
    }
}

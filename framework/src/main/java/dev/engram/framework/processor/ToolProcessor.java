package dev.engram.framework.processor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
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
    private static final Pattern NAME = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

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
            if (!names.add(spec.name())) {
                error(method, "@Tool method " + signature(method) + ": another @Tool method of "
                        + type.getSimpleName() + " is already named '" + spec.name() + "'; set @Tool(name = ...)");
                continue;
            }
            specs.add(spec);
        }
        if (specs.size() == methods.size()) {
            new ToolSourceWriter(processingEnv, ToolProcessor.class.getName()).write(type, specs);
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
        ToolJavadoc doc = ToolJavadoc.parse(processingEnv.getElementUtils().getDocComment(method));
        String description = stringValue(tool, "description");
        if (description.isBlank()) {
            description = doc.main();
        }
        if (description.isBlank()) {
            error(method, where + " has no description: write a javadoc comment for it or set @Tool(description = ...)");
            ok = false;
        }

        List<ToolSpec.Param> params = new ArrayList<>();
        for (VariableElement p : method.getParameters()) {
            String javaName = p.getSimpleName().toString();
            boolean last = p == method.getParameters().get(method.getParameters().size() - 1);
            if (method.isVarArgs() && last) {
                error(p, where + ": varargs parameter '" + javaName + "' is not supported; take a List instead");
                ok = false;
                continue;
            }
            if (isType(p.asType(), CONTEXT)) {
                params.add(new ToolSpec.Param(javaName, null, p.asType(), true, null));
                continue;
            }
            try {
                ParameterTypes.check(p.asType(), new ArrayDeque<>());
            } catch (ParameterTypes.Unsupported u) {
                error(p, where + ": parameter '" + javaName + "' has type " + p.asType() + ", which @Tool cannot map to "
                        + "JSON Schema" + (u.getMessage() == null ? "" : " (" + u.getMessage() + ")")
                        + "; use String, boolean, a number, an enum, a List, a Set, an array or a record");
                ok = false;
                continue;
            }
            params.add(new ToolSpec.Param(javaName, snakeCase(javaName), p.asType(), false,
                    doc.params().get(javaName)));
        }
        if (!ok) {
            return null;
        }
        String tier = enumValue(tool, "tier", "SIDE_EFFECTING");
        String truncation = enumValue(tool, "truncation", "KEEP_HEAD");
        return new ToolSpec(method, name, description, tier, timeout, truncation, params);
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
}

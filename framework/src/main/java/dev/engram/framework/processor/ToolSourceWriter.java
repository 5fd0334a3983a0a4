package dev.engram.framework.processor;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.tools.Diagnostic;

/**
 * Writes the {@code <Class>_Tools} source of the {@code @Tool} processor: {@code static List<DynamicTool> of(<Class> target)},
 * one {@code GeneratedTools.tool(...)} per checked {@link ToolSpec}, whose schema {@code InputSchemas} makes at run time
 * from the parameter types written here.
 */
final class ToolSourceWriter {
    private static final String FRAMEWORK = "dev.engram.framework.";

    private final ProcessingEnvironment processingEnv;
    /** The processor's class name, which the generated class names in its {@code @Generated}. */
    private final String generator;

    ToolSourceWriter(ProcessingEnvironment processingEnv, String generator) {
        this.processingEnv = processingEnv;
        this.generator = generator;
    }

    /** Writes {@code <Class>_Tools} for {@code type}'s tools; a failure to write is a compile error on the type. */
    void write(TypeElement type, List<ToolSpec> specs) {
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
        src.append("@javax.annotation.processing.Generated(\"").append(generator).append("\")\n");
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
            processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR,
                    "could not write the generated tools of " + target + ": " + e.getMessage(), type);
        }
    }

    private void appendTool(StringBuilder src, String target, ToolSpec spec) {
        ExecutableElement m = spec.method();
        boolean isStatic = m.getModifiers().contains(Modifier.STATIC);
        boolean isVoid = m.getReturnType().getKind() == TypeKind.VOID;
        StringBuilder call = new StringBuilder(isStatic ? target : "target").append('.').append(m.getSimpleName()).append('(');
        for (int i = 0; i < spec.params().size(); i++) {
            ToolSpec.Param p = spec.params().get(i);
            if (i > 0) {
                call.append(", ");
            }
            if (p.context()) {
                call.append("context");
            } else {
                call.append(FRAMEWORK).append("GeneratedTools.arg(arguments, ").append(JsonText.javaString(p.jsonName()))
                        .append(", ").append(typeToken(p.type())).append(')');
            }
        }
        call.append(')');
        src.append("            ").append(FRAMEWORK).append("GeneratedTools.tool(")
                .append(JsonText.javaString(spec.name())).append(",\n                ")
                .append(JsonText.javaString(spec.description())).append(",\n                ")
                .append(parameterList(spec)).append(",\n                ")
                .append(FRAMEWORK).append("SafetyTier.").append(spec.tier()).append(", ")
                .append(spec.timeoutMillis()).append("L, ")
                .append(FRAMEWORK).append("Truncation.").append(spec.truncation()).append(",\n                ")
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
        for (ToolSpec.Param p : spec.params()) {
            if (p.context()) {
                continue;
            }
            if (!first) {
                list.append(",\n                    ");
            }
            first = false;
            list.append(FRAMEWORK).append("GeneratedTools.param(").append(JsonText.javaString(p.jsonName())).append(", ")
                    .append(reflectType(p.type())).append(", ")
                    .append(p.description() == null || p.description().isBlank() ? "null" : JsonText.javaString(p.description()))
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
}

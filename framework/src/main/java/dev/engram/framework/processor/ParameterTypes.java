package dev.engram.framework.processor;

import java.util.Deque;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.RecordComponentElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;

/** The parameter types a {@code @Tool} method may take: those with a JSON Schema. */
final class ParameterTypes {
    private ParameterTypes() {
    }

    /**
     * Refuses, at compile time, a parameter type that has no JSON Schema. The schema itself is generated
     * at run time from the parameter types, by the same generator as typed tools' ({@code InputSchemas}).
     */
    static void check(TypeMirror type, Deque<String> seen) throws Unsupported {
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

    private static void checkDeclared(DeclaredType type, Deque<String> seen) throws Unsupported {
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

    /** A parameter type with no JSON Schema, with what is wrong with it when there is more to say. */
    static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(String detail) {
            super(detail, null, false, false);
        }
    }
}

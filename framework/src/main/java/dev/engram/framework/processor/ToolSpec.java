package dev.engram.framework.processor;

import java.util.List;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.TypeMirror;

/** Everything needed to generate one tool from its {@code @Tool} method: what {@link ToolProcessor} read and checked. */
record ToolSpec(ExecutableElement method, String name, String description, String tier, long timeoutMillis,
        String truncation, List<Param> params) {
    /**
     * One parameter of the method: the {@code ToolContext} (no JSON name), or an argument with its JSON name, type and
     * {@code @param} description (null when it has none).
     */
    record Param(String javaName, String jsonName, TypeMirror type, boolean context, String description) {
    }
}

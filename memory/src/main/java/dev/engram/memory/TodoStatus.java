package dev.engram.memory;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Where an item of an agent's task list ({@link TodoItem}) stands. */
public enum TodoStatus {
    /** Not started. */
    PENDING,
    /** Being worked on now. */
    IN_PROGRESS,
    /** Done. */
    COMPLETED;

    /** The name tools and JSON use: {@code pending}, {@code in_progress}, {@code completed}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The status of that wire name, any case.
     *
     * @throws IllegalArgumentException naming the accepted names when it is none of them
     */
    public static TodoStatus fromWire(String name) {
        Checks.notNull(name, "todo status");
        for (TodoStatus s : values()) {
            if (s.wire().equalsIgnoreCase(name.strip())) {
                return s;
            }
        }
        throw new IllegalArgumentException("a todo status is one of " + Arrays.stream(values()).map(TodoStatus::wire)
                .collect(Collectors.joining(", ")) + "; got '" + name + "'");
    }
}

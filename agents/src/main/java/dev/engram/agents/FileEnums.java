package dev.engram.agents;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The enum-like fields of agent files (permissions, block types, roles, approval modes), read by name: a value the
 * enum does not have is refused with a message that names the field and the values it takes, never with Java's
 * {@code No enum constant ...}.
 */
final class FileEnums {
    private FileEnums() {
    }

    /** The constant named {@code value} (in any case); an {@link IllegalArgumentException} naming {@code field} and the allowed values. */
    static <E extends Enum<E>> E parse(Class<E> type, String value, String field) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(value)) {
                return e;
            }
        }
        throw new IllegalArgumentException("\"" + field + "\" is '" + value + "'; it takes one of: " + allowed(type));
    }

    /** The values an enum-like field takes, as files write them: {@code read_only, read_write}. */
    static String allowed(Class<? extends Enum<?>> type) {
        return Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "));
    }
}

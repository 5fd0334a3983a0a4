package dev.engram.memory;

import java.util.Collection;
import java.util.Objects;

/** Argument checks shared by the values and stores; each failure is a sentence a caller can act on. */
final class Checks {
    /** Longest id or label accepted. */
    static final int MAX_ID_LENGTH = 200;

    private Checks() {
    }

    static String id(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be null or blank");
        }
        if (value.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException(what + " must be at most " + MAX_ID_LENGTH + " characters, got " + value.length());
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new IllegalArgumentException(what + " must not contain control characters");
            }
        }
        return value;
    }

    static String text(String value, String what) {
        return Objects.requireNonNull(value, () -> what + " must not be null");
    }

    static <T> T notNull(T value, String what) {
        return Objects.requireNonNull(value, () -> what + " must not be null");
    }

    static <T> Collection<T> noNulls(Collection<T> values, String what) {
        notNull(values, what);
        for (T v : values) {
            notNull(v, "each of " + what);
        }
        return values;
    }
}

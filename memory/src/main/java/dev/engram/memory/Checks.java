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

    /**
     * Rejects text that is not valid Unicode: an unpaired UTF-16 surrogate cannot be stored (SQLite's
     * UTF-8 would silently turn it into '?').
     */
    static String unicode(String value, String what) {
        notNull(value, what);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(what + " contains an unpaired UTF-16 surrogate (U+"
                        + String.format("%04X", (int) c) + " at index " + i + "); send valid Unicode text");
            }
        }
        return value;
    }

    /** Characters as a block's limit counts them: Unicode code points, so an emoji is one. */
    static int size(String value) {
        return value.codePointCount(0, value.length());
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

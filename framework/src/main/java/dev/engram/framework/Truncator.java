package dev.engram.framework;

import java.nio.charset.StandardCharsets;

/** Cuts text to a UTF-8 byte budget without splitting a character, and says it did. */
final class Truncator {
    /** The smallest budget that leaves room for the notice and some output. */
    static final int MIN_BUDGET = 256;

    record Cut(String content, boolean truncated, long originalBytes) {
    }

    private Truncator() {
    }

    static String notice(long originalBytes) {
        return "[output truncated — original size: " + originalBytes + " bytes]";
    }

    /**
     * Returns {@code text} unchanged if it fits in {@code budget} UTF-8 bytes; otherwise the kept end
     * plus the notice, together at most {@code budget} bytes.
     */
    static Cut cut(String text, int budget, Truncation mode) {
        // Fast path: a string of n chars is at most 3n UTF-8 bytes.
        if ((long) text.length() * 3 <= budget) {
            return new Cut(text, false, utf8Length(text));
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= budget) {
            return new Cut(text, false, bytes.length);
        }
        String notice = notice(bytes.length);
        int keep = budget - notice.getBytes(StandardCharsets.UTF_8).length - 1;
        if (mode == Truncation.KEEP_HEAD) {
            int end = keep;
            while (end > 0 && isContinuation(bytes[end])) {
                end--;
            }
            return new Cut(new String(bytes, 0, end, StandardCharsets.UTF_8) + "\n" + notice, true, bytes.length);
        }
        int start = bytes.length - keep;
        while (start < bytes.length && isContinuation(bytes[start])) {
            start++;
        }
        return new Cut(notice + "\n" + new String(bytes, start, bytes.length - start, StandardCharsets.UTF_8),
                true, bytes.length);
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xC0) == 0x80;
    }

    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}

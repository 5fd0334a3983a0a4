package dev.engram.memory;

import java.security.SecureRandom;
import java.util.Locale;
import java.util.UUID;

/**
 * Ids of archival entries and notes: {@code <prefix>-<uuid>} with a version-7 UUID (RFC 9562): the
 * first 48 bits are the Unix time in milliseconds, the rest random. Time-ordered ids keep the
 * primary-key B-tree appending at its end instead of splitting pages all over it.
 */
final class Ids {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    static String next(String prefix) {
        return prefix + "-" + uuid7(System.currentTimeMillis()).toString().toLowerCase(Locale.ROOT);
    }

    static UUID uuid7(long epochMillis) {
        byte[] random = new byte[10];
        RANDOM.nextBytes(random);
        long msb = (epochMillis & 0xFFFF_FFFF_FFFFL) << 16;
        msb |= 0x7000L; // version 7
        msb |= ((random[0] & 0x0FL) << 8) | (random[1] & 0xFFL);
        long lsb = 0;
        for (int i = 2; i < 10; i++) {
            lsb = (lsb << 8) | (random[i] & 0xFFL);
        }
        lsb = (lsb & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L; // IETF variant
        return new UUID(msb, lsb);
    }
}

package dev.engram.memory;

import java.time.Duration;
import java.util.BitSet;
import java.util.Optional;

/**
 * The shortest time between two firings of a five-field Unix cron expression, from its minute and hour fields: a
 * cron's times of day are the same on every day it fires, so its shortest interval is between two of them, or from
 * the last of a day to the first of the next (counted as if every day fired, which can only make it shorter). Read
 * from the fields because stepping through firings with cron-utils costs about a millisecond each.
 */
final class CronGaps {
    private static final int DAY = 24 * 60;

    private CronGaps() {
    }

    /** The shortest interval; empty when a field is written in a way this does not read (the caller then steps). */
    static Optional<Duration> shortest(String expression) {
        String[] fields = expression.strip().split("\\s+");
        if (fields.length != 5) {
            return Optional.empty();
        }
        Optional<BitSet> minutes = values(fields[0], 0, 59);
        Optional<BitSet> hours = values(fields[1], 0, 23);
        if (minutes.isEmpty() || hours.isEmpty() || minutes.get().isEmpty() || hours.get().isEmpty()) {
            return Optional.empty();
        }
        int first = -1;
        int previous = -1;
        int shortest = DAY;
        for (int h = hours.get().nextSetBit(0); h >= 0; h = hours.get().nextSetBit(h + 1)) {
            for (int m = minutes.get().nextSetBit(0); m >= 0; m = minutes.get().nextSetBit(m + 1)) {
                int t = h * 60 + m;
                if (first < 0) {
                    first = t;
                } else {
                    shortest = Math.min(shortest, t - previous);
                }
                previous = t;
            }
        }
        shortest = Math.min(shortest, first + DAY - previous);
        return Optional.of(Duration.ofMinutes(shortest));
    }

    /** The values of one field: comma-separated {@code *}, {@code N} or {@code N-M}, each with an optional {@code /STEP}. */
    private static Optional<BitSet> values(String field, int min, int max) {
        BitSet out = new BitSet(max + 1);
        for (String item : field.split(",", -1)) {
            String range = item;
            int step = 1;
            int slash = item.indexOf('/');
            if (slash >= 0) {
                range = item.substring(0, slash);
                Optional<Integer> s = number(item.substring(slash + 1));
                if (s.isEmpty() || s.get() < 1) {
                    return Optional.empty();
                }
                step = s.get();
            }
            int from;
            int to;
            if (range.equals("*")) {
                from = min;
                to = max;
            } else if (range.contains("-")) {
                Optional<Integer> a = number(range.substring(0, range.indexOf('-')));
                Optional<Integer> b = number(range.substring(range.indexOf('-') + 1));
                if (a.isEmpty() || b.isEmpty()) {
                    return Optional.empty();
                }
                from = a.get();
                to = b.get();
            } else {
                Optional<Integer> a = number(range);
                if (a.isEmpty()) {
                    return Optional.empty();
                }
                from = a.get();
                to = slash >= 0 ? max : from;
            }
            if (from < min || to > max || from > to) {
                return Optional.empty();
            }
            for (int v = from; v <= to; v += step) {
                out.set(v);
            }
        }
        return Optional.of(out);
    }

    private static Optional<Integer> number(String text) {
        if (text.isEmpty() || text.length() > 2 || !text.chars().allMatch(Character::isDigit)) {
            return Optional.empty();
        }
        return Optional.of(Integer.parseInt(text));
    }
}

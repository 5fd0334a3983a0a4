package dev.engram.cli;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The command line's one way to write a duration: a whole number and a unit, {@code 90s}, {@code 30m}, {@code 2h}, {@code 1d}. */
final class DurationText {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})([smhd])");

    private DurationText() {
    }

    /** The duration {@code text} writes, or empty when it is not a number and one of the units s, m, h, d. */
    static Optional<Duration> parse(String text) {
        Matcher m = DURATION.matcher(text.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        long n = Long.parseLong(m.group(1));
        return Optional.of(switch (m.group(2)) {
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        });
    }
}

package dev.engram.memory;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;

/**
 * When a {@link Schedule} fires: {@linkplain #once once}, at an instant, or {@linkplain #cron recurring}
 * by a Unix cron expression in a time zone.
 */
public sealed interface ScheduleTiming {
    /** Fires once, at {@code at}. */
    static ScheduleTiming once(Instant at) {
        return new Once(at);
    }

    /**
     * Fires at every time the five-field Unix cron expression matches ({@code minute hour day-of-month
     * month day-of-week}, e.g. {@code "0 9 * * 1-5"}: weekdays at 9:00), read in {@code zone}.
     *
     * @throws IllegalArgumentException if the expression is not a valid Unix cron expression
     */
    static ScheduleTiming cron(String expression, ZoneId zone) {
        return new Cron(expression, zone);
    }

    /** The first firing strictly after {@code instant}; empty when there is none (a one-off already past). */
    Optional<Instant> nextAfter(Instant instant);

    /** Whether it fires more than once. */
    boolean recurring();

    /** A one-off firing. */
    record Once(Instant at) implements ScheduleTiming {
        public Once {
            Checks.notNull(at, "time of a one-off schedule");
        }

        @Override
        public Optional<Instant> nextAfter(Instant instant) {
            return at.isAfter(instant) ? Optional.of(at) : Optional.empty();
        }

        @Override
        public boolean recurring() {
            return false;
        }

        @Override
        public String toString() {
            return "once at " + at;
        }
    }

    /** A recurring firing by a Unix cron expression, in a time zone. */
    record Cron(String expression, ZoneId zone) implements ScheduleTiming {
        private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

        public Cron {
            Checks.notNull(expression, "cron expression");
            Checks.notNull(zone, "time zone");
            expression = expression.strip().replaceAll("\\s+", " ");
            executionTime(expression);
        }

        @Override
        public Optional<Instant> nextAfter(Instant instant) {
            return executionTime(expression).nextExecution(instant.atZone(zone)).map(t -> t.toInstant());
        }

        /** Up to {@code max} firings after {@code instant}, in order (the expression is read once for all). */
        public java.util.List<Instant> firingsAfter(Instant instant, int max) {
            ExecutionTime time = executionTime(expression);
            java.util.List<Instant> out = new java.util.ArrayList<>();
            java.time.ZonedDateTime at = instant.atZone(zone);
            while (out.size() < max) {
                Optional<java.time.ZonedDateTime> next = time.nextExecution(at);
                if (next.isEmpty()) {
                    break;
                }
                at = next.get();
                out.add(at.toInstant());
            }
            return out;
        }

        @Override
        public boolean recurring() {
            return true;
        }

        @Override
        public String toString() {
            return "cron '" + expression + "' in " + zone;
        }

        private static ExecutionTime executionTime(String expression) {
            if (expression.isEmpty()) {
                throw new IllegalArgumentException("cron expression is empty; give five fields: minute hour "
                        + "day-of-month month day-of-week, e.g. '0 9 * * 1-5'");
            }
            try {
                return ExecutionTime.forCron(PARSER.parse(expression).validate());
            } catch (IllegalArgumentException | DateTimeException e) {
                throw new IllegalArgumentException("'" + expression + "' is not a Unix cron expression (minute hour "
                        + "day-of-month month day-of-week, e.g. '0 9 * * 1-5'): " + e.getMessage(), e);
            }
        }
    }
}

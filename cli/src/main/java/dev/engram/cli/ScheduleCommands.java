package dev.engram.cli;

import dev.engram.memory.NotFoundException;
import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.Scope;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram schedule list|add|cancel}: the scheduled messages of a user's agents. */
@Command(name = "schedule", mixinStandardHelpOptions = true,
        description = {"Messages scheduled for a user's agents (reminders, recurring checks).",
                "Agents set them with the schedule tool; 'engram chat' delivers them while it runs, late ones marked late."},
        subcommands = {ScheduleCommands.ListSchedules.class, ScheduleCommands.Add.class, ScheduleCommands.Cancel.class})
final class ScheduleCommands extends GroupCommand {

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List the user's waiting schedules, soonest first (--all: finished and cancelled too).")
    static final class ListSchedules extends BaseCommand {
        @Mixin
        UserOption owner;

        @Option(names = "--agent", paramLabel = "NAME", description = "Only this agent's (by name or id).")
        String agent;

        @Option(names = "--all", description = "Also those that fired or were cancelled.")
        boolean all;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                List<Schedule> list = agent == null ? engine.store().schedules().list(owner.user)
                        : engine.store().schedules().list(scope(engine, owner.user, agent));
                List<Schedule> shown = list.stream().filter(s -> all || s.active()).toList();
                if (shown.isEmpty()) {
                    out().println("No " + (all ? "" : "waiting ") + "schedules for user '" + owner.user + "'.");
                }
                java.util.Map<String, String> names = new java.util.HashMap<>();
                engine.store().agents().list(owner.user).forEach(a -> names.put(a.scope().agentId(), a.name()));
                for (Schedule s : shown) {
                    out().printf(Locale.ROOT, "%s  %-12s %-10s %-28s runs %-3d %s  %s%n", s.id(),
                            names.getOrDefault(s.scope().agentId(), s.scope().agentId()),
                            s.status().name().toLowerCase(Locale.ROOT), state(s), s.runs(), timing(s.timing()),
                            TranscriptPrinter.compact(s.message()));
                }
            }
            return 0;
        }

        private static String state(Schedule s) {
            return s.nextRunAt().map(t -> "next " + t).orElse(s.lastRunAt().map(t -> "last " + t).orElse("never ran"));
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Schedule a message to an agent: once (--in or --at) or repeating (--cron).")
    static final class Add extends BaseCommand {
        @Parameters(paramLabel = "MESSAGE", description = "What the agent receives when it fires.")
        String message;

        @Mixin
        ScopeOptions scope;

        @ArgGroup(exclusive = true, multiplicity = "1")
        When when;

        static final class When {
            @Option(names = "--in", paramLabel = "DURATION", description = "Once, after this long: 90s, 30m, 2h, 1d.")
            String in;

            @Option(names = "--at", paramLabel = "TIME", description = "Once, at an ISO-8601 time with offset, e.g. 2026-11-23T09:00:00+01:00.")
            String at;

            @Option(names = "--cron", paramLabel = "EXPR", description = "Repeating, by a Unix cron expression, e.g. '0 9 * * 1-5'.")
            String cron;
        }

        @Option(names = "--timezone", paramLabel = "ZONE", defaultValue = "UTC",
                description = "The time zone --cron is read in; default ${DEFAULT-VALUE}.")
        String zone;

        @Option(names = "--session", paramLabel = "ID", defaultValue = "default",
                description = "The session it is delivered in; default ${DEFAULT-VALUE}.")
        String session;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                ScheduleTiming timing;
                if (when.cron != null) {
                    timing = ScheduleTiming.cron(when.cron, zone(zone));
                } else if (when.in != null) {
                    timing = ScheduleTiming.once(Instant.now().plus(duration(when.in)).truncatedTo(ChronoUnit.SECONDS));
                } else {
                    timing = ScheduleTiming.once(time(when.at));
                }
                Schedule created = engine.store().schedules().create(s, session, message, timing);
                out().println("Scheduled " + created.id() + " for agent '" + scope.agent + "': next at "
                        + created.nextRunAt().orElseThrow() + ".");
            }
            return 0;
        }

        private Duration duration(String text) {
            return DurationText.parse(text).orElseThrow(
                    () -> usage("--in takes a number and a unit (s, m, h or d), e.g. 30m; got '" + text + "'"));
        }

        private Instant time(String text) {
            try {
                return OffsetDateTime.parse(text.strip()).toInstant();
            } catch (DateTimeParseException e) {
                throw usage("--at takes an ISO-8601 time with an offset, e.g. 2026-11-23T09:00:00+01:00; got '" + text + "'");
            }
        }

        private ZoneId zone(String id) {
            try {
                return ZoneId.of(id);
            } catch (DateTimeException e) {
                throw usage("--timezone takes an IANA zone id such as Europe/Paris; got '" + id + "'");
            }
        }
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel one of the user's schedules.")
    static final class Cancel extends BaseCommand {
        @Parameters(paramLabel = "ID")
        String id;

        @Mixin
        UserOption owner;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Schedule s = engine.store().schedules().get(owner.user, id).orElseThrow(() -> new NotFoundException(
                        "User '" + owner.user + "' has no schedule '" + id + "'; list them with 'engram schedule list --user "
                                + owner.user + "'"));
                if (engine.store().schedules().cancel(owner.user, id)) {
                    out().println("Cancelled " + id + "; it will not fire again.");
                } else {
                    out().println(id + " had already " + (s.status() == Schedule.Status.DONE ? "fired" : "been cancelled")
                            + "; nothing changed.");
                }
            }
            return 0;
        }
    }

    private static String timing(ScheduleTiming t) {
        return switch (t) {
            case ScheduleTiming.Once o -> "once";
            case ScheduleTiming.Cron c -> "cron '" + c.expression() + "' " + c.zone().getId();
        };
    }
}

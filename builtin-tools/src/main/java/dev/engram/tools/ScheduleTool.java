package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonTypeName;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.Truncation;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleLimits;
import dev.engram.memory.ScheduleStore;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.Scope;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code schedule}: messages the agent will receive later (reminders for its user, checks of its own),
 * once or on a cron schedule, and the list and cancellation of its own. Kept in the store
 * ({@link dev.engram.memory.ScheduleStore}); the agent runtime's scheduler delivers each as a turn
 * in the session it was set in.
 */
final class ScheduleTool implements AiTool<ScheduleTool.Op, String> {
    static final String NAME = "schedule";
    private static final ToolInfo INFO = new ToolInfo(NAME,
            "Schedule a message to yourself for later: a reminder the user asked for (\"remind me tomorrow at 9\"), or a "
                + "check you want to make. create with in_minutes or at for one time, or with cron (and timezone) to "
                + "repeat; when it fires you receive the message as a new turn in this session and can act on it, e.g. "
                + "send_message the reminder. list shows your schedules and the current time; cancel stops one.",
            SafetyTier.SIDE_EFFECTING, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);

    @JsonClassDescription("Schedule operations.")
    sealed interface Op permits Create, ListSchedules, Cancel {
    }

    @JsonClassDescription("schedule a message, once (in_minutes or at) or repeating (cron)")
    record Create(
            @JsonPropertyDescription("What you will receive when it fires, written for your future self with the context "
                    + "you will need, e.g. \"Remind Ana to call her sister; she asked at breakfast.\"") String message,
            @JsonPropertyDescription("Once, this many minutes from now, e.g. 120 for 'in two hours'.") Optional<Long> inMinutes,
            @JsonPropertyDescription("Once, at this ISO-8601 time with its offset, e.g. 2026-11-23T09:00:00+01:00.")
            Optional<String> at,
            @JsonPropertyDescription("Repeating, by a Unix cron expression: minute hour day-of-month month day-of-week, "
                    + "e.g. \"0 9 * * 1-5\" for weekdays at 9:00.") Optional<String> cron,
            @JsonPropertyDescription("The IANA time zone cron is read in, e.g. Europe/Paris; default UTC.")
            Optional<String> timezone) implements Op {
    }

    @JsonTypeName("list")
    @JsonClassDescription("list your schedules, waiting ones first, with the current time")
    record ListSchedules() implements Op {
    }

    @JsonClassDescription("cancel one of your schedules so that it does not fire again")
    record Cancel(@JsonPropertyDescription("Its id, e.g. sched-0190...; from create or list.") String scheduleId) implements Op {
    }

    private final MemoryStore store;
    /** The store's schedules within the limits the host chose (minimum interval, how far ahead). */
    private final ScheduleStore schedules;

    ScheduleTool(MemoryStore store, ScheduleLimits limits) {
        this.store = store;
        this.schedules = store.schedules().limitedBy(limits);
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Op> inputType() {
        return Op.class;
    }

    @Override
    public String execute(Op op, ToolContext ctx) throws Exception {
        Scope scope = ToolScopes.of(ctx);
        try {
            return switch (op) {
                case Create c -> create(scope, ctx.sessionId().orElse("default"), c);
                case ListSchedules l -> list(scope);
                case Cancel c -> cancel(scope, c.scheduleId());
            };
        } catch (MemoryException | IllegalArgumentException e) {
            throw new ToolException(e.getMessage());
        } catch (UnsupportedOperationException e) {
            throw new ToolException("Scheduling is not available here: " + e.getMessage() + ".");
        }
    }

    private String create(Scope scope, String session, Create c) {
        int given = (c.inMinutes().isPresent() ? 1 : 0) + (c.at().isPresent() ? 1 : 0) + (c.cron().isPresent() ? 1 : 0);
        if (given != 1) {
            throw new ToolException("Give exactly one of in_minutes, at (once) or cron (repeating); got " + given + ".");
        }
        if (c.timezone().isPresent() && c.cron().isEmpty()) {
            throw new ToolException("timezone goes with cron; for one time, give at with its offset or in_minutes.");
        }
        Instant now = store.clock().instant();
        ScheduleTiming timing;
        if (c.inMinutes().isPresent()) {
            long minutes = c.inMinutes().get();
            long most = schedules.limits().maxAhead().toMinutes();
            if (minutes < 1 || minutes > most) {
                throw new ToolException("in_minutes must be between 1 and " + most + ", got " + minutes + ".");
            }
            timing = ScheduleTiming.once(now.plus(Duration.ofMinutes(minutes)).truncatedTo(ChronoUnit.SECONDS));
        } else if (c.at().isPresent()) {
            timing = ScheduleTiming.once(parseTime(c.at().get(), now));
        } else {
            timing = ScheduleTiming.cron(c.cron().get(), zone(c.timezone().orElse("UTC")));
        }
        Schedule s = schedules.create(scope, session, c.message(), timing);
        return "Scheduled " + s.id() + " (" + describe(s.timing()) + "); it fires next at " + s.nextRunAt().orElseThrow()
                + " (it is now " + now.truncatedTo(ChronoUnit.SECONDS) + "). You will receive: \"" + s.message() + "\"";
    }

    private String list(Scope scope) {
        List<Schedule> all = store.schedules().list(scope);
        String now = "It is now " + store.clock().instant().truncatedTo(ChronoUnit.SECONDS) + ".";
        if (all.isEmpty()) {
            return now + " You have no schedules.";
        }
        return now + "\n" + all.stream().limit(50).map(ScheduleTool::line).collect(Collectors.joining("\n"))
                + (all.size() > 50 ? "\n(" + (all.size() - 50) + " older finished schedules not shown)" : "");
    }

    private String cancel(Scope scope, String id) {
        Schedule s = store.schedules().get(scope.userId(), id).filter(x -> x.scope().equals(scope))
                .orElseThrow(() -> new ToolException("You have no schedule '" + id + "'; list shows your schedules."));
        if (!store.schedules().cancel(scope.userId(), id)) {
            return "Schedule " + id + " had already " + (s.status() == Schedule.Status.DONE ? "fired" : "been cancelled")
                    + "; nothing changed.";
        }
        return "Cancelled " + id + " (" + describe(s.timing()) + "); it will not fire again.";
    }

    static String line(Schedule s) {
        String state = switch (s.status()) {
            case ACTIVE -> "next " + s.nextRunAt().orElseThrow();
            case DONE -> "fired " + s.lastRunAt().map(Instant::toString).orElse("");
            case CANCELLED -> "cancelled";
        };
        return s.id() + "  " + describe(s.timing()) + "  " + state + "  runs " + s.runs() + "  \"" + s.message() + "\"";
    }

    static String describe(ScheduleTiming timing) {
        return switch (timing) {
            case ScheduleTiming.Once o -> "once at " + o.at();
            case ScheduleTiming.Cron c -> "cron '" + c.expression() + "' " + c.zone().getId();
        };
    }

    private static Instant parseTime(String text, Instant now) {
        try {
            return OffsetDateTime.parse(text.strip()).toInstant();
        } catch (DateTimeParseException e) {
            throw new ToolException("at must be an ISO-8601 time with an offset, e.g. "
                    + now.atOffset(ZoneOffset.UTC).plusHours(1).truncatedTo(ChronoUnit.MINUTES) + "; got '" + text + "'.");
        }
    }

    private static ZoneId zone(String id) {
        try {
            return ZoneId.of(id.strip());
        } catch (DateTimeException e) {
            throw new ToolException("timezone must be an IANA zone id such as Europe/Paris or UTC; got '" + id + "'.");
        }
    }
}

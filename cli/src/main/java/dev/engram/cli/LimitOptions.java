package dev.engram.cli;

import dev.engram.agents.AgentRuntime;
import dev.engram.memory.ScheduleLimits;
import dev.engram.server.EngramServer;
import dev.engram.memory.UserQuotas;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** The per-user limits of {@code engram serve}: quotas, waiting approvals, and how often schedules may fire. */
final class LimitOptions {
    @Option(names = "--max-agents-per-user", paramLabel = "N", defaultValue = "1000",
            description = "Agents each user may have (default ${DEFAULT-VALUE}); beyond it a create is refused with 403.")
    long agents;

    @Option(names = "--max-blocks-per-user", paramLabel = "N", defaultValue = "10000",
            description = "Memory blocks each user may have (default ${DEFAULT-VALUE}).")
    long blocks;

    @Option(names = "--max-archival-entries-per-user", paramLabel = "N", defaultValue = "1000000",
            description = "Archival entries each user may have (default ${DEFAULT-VALUE}).")
    long archivalEntries;

    @Option(names = "--max-notes-per-user", paramLabel = "N", defaultValue = "100000",
            description = "Notes each user may have (default ${DEFAULT-VALUE}).")
    long notes;

    @Option(names = "--max-stored-bytes-per-user", paramLabel = "BYTES", defaultValue = "1073741824",
            description = "Bytes of blocks, archival entries and notes each user may store (default ${DEFAULT-VALUE}, 1 GiB).")
    long storedBytes;

    @Option(names = "--max-waiting-approvals-per-user", paramLabel = "N", defaultValue = "100",
            description = "Turns of one user that may wait for a tool approval at once (default ${DEFAULT-VALUE}); a call "
                    + "beyond it is denied.")
    int waitingPerUser;

    @Option(names = "--max-waiting-approvals", paramLabel = "N", defaultValue = "1000",
            description = "Turns of all users that may wait for a tool approval at once (default ${DEFAULT-VALUE}).")
    int waitingPerServer;

    @Option(names = "--min-schedule-interval", paramLabel = "DURATION", defaultValue = "5m", converter = Minutes.class,
            description = "The shortest time between two firings of a cron schedule, e.g. 5m or 1h (default ${DEFAULT-VALUE}).")
    Duration minScheduleInterval;

    @Option(names = "--max-scheduled-turns-per-hour", paramLabel = "N", defaultValue = "60",
            description = "Scheduled turns each user gets in an hour (default ${DEFAULT-VALUE}); further firings are skipped.")
    int firingsPerHour;

    @Option(names = "--max-scheduled-turns-per-day", paramLabel = "N", defaultValue = "500",
            description = "Scheduled turns each user gets in 24 hours (default ${DEFAULT-VALUE}).")
    int firingsPerDay;

    @Option(names = "--max-loaded-agents", paramLabel = "N", defaultValue = "" + AgentRuntime.Builder.DEFAULT_MAX_LOADED_AGENTS,
            description = "Agents the server keeps loaded in memory (default ${DEFAULT-VALUE}); beyond it the least recently "
                    + "used idle ones are let go and loaded from the store again at their next message.")
    int maxLoadedAgents;

    UserQuotas quotas() {
        return new UserQuotas(agents, blocks, archivalEntries, notes, storedBytes);
    }

    ScheduleLimits scheduleLimits() {
        return ScheduleLimits.defaults().withMinInterval(minScheduleInterval).withFirings(firingsPerHour, firingsPerDay);
    }

    /** Sets the server's quotas and waiting caps (the runtime's schedule limits go through {@link #configure}). */
    EngramServer.Builder apply(EngramServer.Builder b) {
        return b.quotas(quotas()).maxWaitingApprovals(waitingPerUser, waitingPerServer);
    }

    void configure(AgentRuntime.Builder b) {
        b.scheduleLimits(scheduleLimits());
        b.maxLoadedAgents(maxLoadedAgents);
    }

    /** One line for the server's banner. */
    String describe() {
        return String.format(Locale.ROOT, "per user %d agents, %d blocks, %d archival entries, %d notes, %d bytes, %d waiting "
                + "approvals (%d on the server); schedules %d min apart, %d turns an hour, %d a day", agents, blocks,
                archivalEntries, notes, storedBytes, waitingPerUser, waitingPerServer, minScheduleInterval.toMinutes(),
                firingsPerHour, firingsPerDay);
    }

    /** A duration option, written as {@link DurationText} reads it. */
    static final class Minutes implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            return DurationText.parse(text).orElseThrow(() -> new TypeConversionException("'" + text + "' is not a "
                    + "duration: give a number and a unit, s, m, h or d (e.g. 5m, 1h)"));
        }
    }
}

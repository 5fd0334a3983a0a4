package dev.engram.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Scheduled messages of each agent ({@link Schedule}): created by the agent's {@code schedule} tool or
 * the host, listed and cancelled per user, and claimed and finished by the agent runtime's scheduler.
 * A user's schedules are never visible to another user: an id of someone else's is "not found".
 *
 * <p>Time is the store's clock ({@link MemoryStore#clock()}): a schedule is due when that clock reaches
 * its next run time, so that a test that controls the clock controls the schedules.
 *
 * <p>Backends keep schedules through the optional schedule methods of {@link dev.engram.memory.spi.Rows};
 * over a backend without them every method here throws {@link UnsupportedOperationException}.
 */
public final class ScheduleStore {
    /** How many schedules an agent may have waiting at once. */
    public static final int MAX_ACTIVE_PER_AGENT = 100;

    private static final Comparator<Schedule> LISTED = Comparator.comparing((Schedule s) -> !s.active())
            .thenComparing(s -> s.nextRunAt().orElse(Instant.MAX))
            .thenComparing(Schedule::updatedAt, Comparator.reverseOrder());

    /** How many firings of a cron schedule whose fields {@link CronGaps} cannot read are looked at for the shortest interval. */
    private static final int FIRINGS_CHECKED = 100;

    private final StoreCore store;
    private final ScheduleLimits limits;

    ScheduleStore(StoreCore store) {
        this(store, ScheduleLimits.defaults());
    }

    private ScheduleStore(StoreCore store, ScheduleLimits limits) {
        this.store = store;
        this.limits = limits;
    }

    /** This store, creating schedules within {@code limits} instead of {@link ScheduleLimits#defaults()}. */
    public ScheduleStore limitedBy(ScheduleLimits limits) {
        Checks.notNull(limits, "schedule limits");
        return new ScheduleStore(store, limits);
    }

    /** The limits {@link #create} keeps. */
    public ScheduleLimits limits() {
        return limits;
    }

    /**
     * Stores a new schedule with id {@code sched-<uuid>}, first due at the timing's first firing after now.
     *
     * @throws IllegalArgumentException if the message or session is blank, a one-off time is not in the future or is
     *                                  further ahead than the {@linkplain #limits() limits} allow, or a cron
     *                                  schedule would fire more often than their minimum interval
     * @throws MemoryException          if the agent already has {@link #MAX_ACTIVE_PER_AGENT} schedules waiting
     */
    public Schedule create(Scope scope, String sessionId, String message, ScheduleTiming timing) {
        Checks.notNull(scope, "scope");
        Checks.id(sessionId, "session id");
        MemoryErrors.checkContent(message, "scheduled message");
        store.limits().check(message, "scheduled message");
        Checks.notNull(timing, "timing");
        Instant now = store.now();
        Instant first = timing.nextAfter(now).orElseThrow(() -> new IllegalArgumentException(switch (timing) {
            case ScheduleTiming.Once once -> "the time " + once.at() + " is not in the future (it is now " + now + "); give a later time";
            case ScheduleTiming.Cron cron -> "cron '" + cron.expression() + "' never fires; check the day and month";
        }));
        checkLimits(timing, now, first);
        return store.write(rows -> {
            long waiting = rows.listSchedules(scope.userId()).stream()
                    .filter(s -> s.active() && s.scope().equals(scope)).count();
            if (waiting >= MAX_ACTIVE_PER_AGENT) {
                throw new MemoryException("Agent '" + scope.agentId() + "' already has " + waiting
                        + " schedules waiting, the most it may have; cancel one first.");
            }
            Schedule s = new Schedule(Ids.next("sched"), scope, sessionId, message, timing, Schedule.Status.ACTIVE,
                    Optional.of(first), Optional.empty(), 0, Optional.empty(), 1, now, now);
            rows.insertSchedule(s);
            return s;
        });
    }

    /** The user's schedule with that id. */
    public Optional<Schedule> get(String userId, String id) {
        Checks.id(userId, "user id");
        Checks.notNull(id, "schedule id");
        return store.read(rows -> rows.schedule(userId, id));
    }

    /** The user's schedules, of all their agents: those waiting first, soonest first, then the finished, latest first. */
    public List<Schedule> list(String userId) {
        Checks.id(userId, "user id");
        return sorted(store.read(rows -> rows.listSchedules(userId)));
    }

    /** The agent's schedules, in the order of {@link #list(String)}. */
    public List<Schedule> list(Scope scope) {
        Checks.notNull(scope, "scope");
        return sorted(store.read(rows -> rows.listSchedules(scope.userId())).stream()
                .filter(s -> s.scope().equals(scope)).toList());
    }

    /**
     * Cancels the user's schedule: it will not fire again (a firing being delivered finishes).
     *
     * @return whether it was waiting; false if it had already finished or been cancelled
     * @throws NotFoundException if the user has no schedule with that id
     */
    public boolean cancel(String userId, String id) {
        Checks.id(userId, "user id");
        Checks.notNull(id, "schedule id");
        return store.write(rows -> {
            Schedule s = rows.schedule(userId, id).orElseThrow(() -> noSchedule(id));
            if (!s.active()) {
                return false;
            }
            if (!rows.updateSchedule(s.with(Schedule.Status.CANCELLED, Optional.empty(), s.lastRunAt(), s.runs(),
                    Optional.empty(), store.now()), s.version())) {
                throw new MemoryException("schedule " + id + " changed while it was being cancelled; try again");
            }
            return true;
        });
    }

    /**
     * Takes up to {@code max} due schedules (of every user) for delivery: each is held for {@code lease}, during which
     * no other caller gets it, and must then be {@linkplain #finishRun finished}. A holder that dies before finishing
     * loses the schedule when its lease ends, and the next caller delivers it (at least once).
     */
    public List<Schedule> claimDue(Duration lease, int max) {
        return claimDue(lease, max, scope -> true);
    }

    /**
     * {@link #claimDue(Duration, int)} for the schedules of the scopes {@code which} accepts (e.g. one user's agents);
     * it looks among the first {@code max} due schedules of all scopes.
     */
    public List<Schedule> claimDue(Duration lease, int max, Predicate<Scope> which) {
        Checks.notNull(lease, "lease");
        Checks.notNull(which, "scope filter");
        if (lease.isNegative() || lease.isZero() || max < 1) {
            throw new IllegalArgumentException("lease must be positive and max at least 1, got " + lease + " and " + max);
        }
        // Most polls find nothing due: ask with a read first, and take the write lock only to claim.
        if (store.read(rows -> rows.dueSchedules(store.now(), max)).stream().noneMatch(s -> which.test(s.scope()))) {
            return List.of();
        }
        return store.write(rows -> {
            Instant now = store.now();
            List<Schedule> claimed = new ArrayList<>();
            for (Schedule s : rows.dueSchedules(now, max)) {
                if (!which.test(s.scope())) {
                    continue;
                }
                Schedule held = s.with(s.status(), s.nextRunAt(), s.lastRunAt(), s.runs(), Optional.of(now.plus(lease)), now);
                if (rows.updateSchedule(held, s.version())) {
                    claimed.add(held);
                }
            }
            return claimed;
        });
    }

    /**
     * Records that a claimed schedule fired now: a one-off one is done; a recurring one waits for its first firing
     * after now (firings missed while nothing ran are not repeated). A schedule cancelled meanwhile stays cancelled.
     *
     * @return the schedule as stored; empty if it was deleted meanwhile
     */
    public Optional<Schedule> finishRun(Schedule claimed) {
        Checks.notNull(claimed, "schedule");
        return store.write(rows -> {
            Optional<Schedule> current = rows.schedule(claimed.scope().userId(), claimed.id());
            if (current.isEmpty()) {
                return Optional.empty();
            }
            Schedule s = current.get();
            Instant now = store.now();
            Optional<Instant> next = s.active() ? s.timing().nextAfter(now) : Optional.empty();
            Schedule.Status status = s.active() && next.isEmpty() ? Schedule.Status.DONE : s.status();
            Schedule done = s.with(status, next, Optional.of(now), s.runs() + 1, Optional.empty(), now);
            if (!rows.updateSchedule(done, s.version())) {
                throw new MemoryException("schedule " + s.id() + " changed while its run was recorded; try again");
            }
            return Optional.of(done);
        });
    }

    /**
     * Gives a claimed schedule back without recording a run (its holder is shutting down before delivering it): the
     * next caller of {@link #claimDue} takes it at once.
     */
    public void release(Schedule claimed) {
        Checks.notNull(claimed, "schedule");
        store.write(rows -> {
            rows.schedule(claimed.scope().userId(), claimed.id())
                    .filter(s -> s.claimedUntil().isPresent())
                    .ifPresent(s -> rows.updateSchedule(s.with(s.status(), s.nextRunAt(), s.lastRunAt(), s.runs(),
                            Optional.empty(), store.now()), s.version()));
            return null;
        });
    }

    private void checkLimits(ScheduleTiming timing, Instant now, Instant first) {
        switch (timing) {
            case ScheduleTiming.Once once -> {
                if (Duration.between(now, first).compareTo(limits.maxAhead()) > 0) {
                    throw new IllegalArgumentException("the time " + once.at() + " is more than " + days(limits.maxAhead())
                            + " ahead (it is now " + now + "); schedules may be set at most that far ahead");
                }
            }
            case ScheduleTiming.Cron cron -> {
                Optional<Duration> shortest = CronGaps.shortest(cron.expression());
                Instant previous = first;
                for (Instant next : shortest.isPresent() ? List.<Instant>of() : cron.firingsAfter(first, FIRINGS_CHECKED)) {
                    Duration gap = Duration.between(previous, next);
                    if (gap.compareTo(shortest.orElse(gap)) <= 0) {
                        shortest = Optional.of(gap);
                    }
                    previous = next;
                }
                if (shortest.isPresent() && shortest.get().compareTo(limits.minInterval()) < 0) {
                    throw new IllegalArgumentException("cron '" + cron.expression() + "' fires " + minutes(shortest.get())
                            + " apart at times; schedules may fire at most once every " + minutes(limits.minInterval())
                            + ": give a cron whose firings are at least that far apart");
                }
            }
        }
    }

    private static String minutes(Duration d) {
        return d.toSeconds() % 60 == 0 ? d.toMinutes() + (d.toMinutes() == 1 ? " minute" : " minutes") : d.toSeconds() + " seconds";
    }

    private static String days(Duration d) {
        return d.toDays() + (d.toDays() == 1 ? " day" : " days");
    }

    private static List<Schedule> sorted(List<Schedule> schedules) {
        return schedules.stream().sorted(LISTED).toList();
    }

    private static NotFoundException noSchedule(String id) {
        return new NotFoundException("There is no schedule '" + id + "' for this user.");
    }
}

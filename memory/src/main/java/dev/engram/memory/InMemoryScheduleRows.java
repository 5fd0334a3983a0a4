package dev.engram.memory;

import dev.engram.memory.spi.ScheduleRows;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The schedules of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one lock,
 * and record each change in its one undo log.
 */
interface InMemoryScheduleRows extends ScheduleRows {
    /** Every schedule by id. */
    Map<String, Schedule> scheduleTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void insertSchedule(Schedule schedule) {
        undo().put(scheduleTable(), schedule.id(), schedule);
    }

    @Override
    default Optional<Schedule> schedule(String userId, String id) {
        return Optional.ofNullable(scheduleTable().get(id)).filter(s -> s.scope().userId().equals(userId));
    }

    @Override
    default List<Schedule> listSchedules(String userId) {
        return scheduleTable().values().stream().filter(s -> s.scope().userId().equals(userId)).toList();
    }

    @Override
    default List<Schedule> dueSchedules(Instant now, int max) {
        return scheduleTable().values().stream()
                .filter(s -> s.active() && !s.nextRunAt().orElseThrow().isAfter(now)
                        && s.claimedUntil().map(c -> !c.isAfter(now)).orElse(true))
                .sorted(Comparator.comparing((Schedule s) -> s.nextRunAt().orElseThrow()).thenComparing(Schedule::id))
                .limit(max).toList();
    }

    @Override
    default boolean updateSchedule(Schedule schedule, long expectedVersion) {
        Schedule old = scheduleTable().get(schedule.id());
        if (old == null || old.version() != expectedVersion || !old.scope().userId().equals(schedule.scope().userId())) {
            return false;
        }
        undo().put(scheduleTable(), schedule.id(), schedule);
        return true;
    }
}

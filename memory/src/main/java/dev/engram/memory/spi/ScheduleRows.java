package dev.engram.memory.spi;

import dev.engram.memory.Schedule;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The schedules of a {@link MemoryBackend}: messages an agent receives later. Optional: a backend that keeps none
 * leaves the defaults, which throw {@link UnsupportedOperationException}.
 */
public interface ScheduleRows {
    /**
     * Stores a new schedule. Schedules are optional: the defaults of the five schedule methods throw
     * {@link UnsupportedOperationException}, and the store's schedules then refuse every call.
     */
    default void insertSchedule(Schedule schedule) {
        throw noSchedules();
    }

    /** The user's schedule with that id. */
    default Optional<Schedule> schedule(String userId, String id) {
        throw noSchedules();
    }

    /** Every schedule of the user, of all their agents, in any state. */
    default List<Schedule> listSchedules(String userId) {
        throw noSchedules();
    }

    /**
     * Up to {@code max} active schedules of any user whose next run is at or before {@code now} and that no one
     * holds (no claim, or a claim ending at or before {@code now}), the soonest due first.
     */
    default List<Schedule> dueSchedules(Instant now, int max) {
        throw noSchedules();
    }

    /** Replaces the stored schedule with {@code schedule} if its stored version is still {@code expectedVersion}; returns whether it did. */
    default boolean updateSchedule(Schedule schedule, long expectedVersion) {
        throw noSchedules();
    }

    private static UnsupportedOperationException noSchedules() {
        return new UnsupportedOperationException("this memory backend keeps no schedules (it does not implement "
                + "the schedule methods of Rows)");
    }
}

package dev.engram.memory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How the embedded SQLite store opens its file.
 *
 * @param file        the database file; created with its parent directories if missing
 * @param durability  what a returned write survives
 * @param busyTimeout how long a write waits for another process holding the database
 * @param readers     connections reserved for reads, which run while a write is in progress
 * @param clock       the source of timestamps
 */
public record SqliteOptions(Path file, Durability durability, Duration busyTimeout, int readers, Clock clock) {
    /** What an acknowledged write survives. */
    public enum Durability {
        /**
         * A crash of the process (SIGKILL included): SQLite's WAL with {@code synchronous=NORMAL}. The
         * default: no fsync per commit.
         */
        PROCESS_CRASH,
        /** Also a crash of the operating system or a power loss: {@code synchronous=FULL}, an fsync per commit. */
        POWER_LOSS
    }

    public SqliteOptions {
        Objects.requireNonNull(file, "file must not be null");
        Objects.requireNonNull(durability, "durability must not be null");
        Objects.requireNonNull(busyTimeout, "busy timeout must not be null");
        Objects.requireNonNull(clock, "clock must not be null");
        if (busyTimeout.isNegative()) {
            throw new IllegalArgumentException("busy timeout must not be negative, got " + busyTimeout);
        }
        if (readers < 1 || readers > 64) {
            throw new IllegalArgumentException("readers must be between 1 and 64, got " + readers);
        }
    }

    public static Builder builder(Path file) {
        return new Builder(file);
    }

    /** Builds {@link SqliteOptions}; defaults: process-crash durability, 5 s busy timeout, 4 readers, UTC clock. */
    public static final class Builder {
        private final Path file;
        private Durability durability = Durability.PROCESS_CRASH;
        private Duration busyTimeout = Duration.ofSeconds(5);
        private int readers = 4;
        private Clock clock = Clock.systemUTC();

        private Builder(Path file) {
            this.file = Objects.requireNonNull(file, "file must not be null");
        }

        public Builder durability(Durability durability) {
            this.durability = durability;
            return this;
        }

        public Builder busyTimeout(Duration busyTimeout) {
            this.busyTimeout = busyTimeout;
            return this;
        }

        public Builder readers(int readers) {
            this.readers = readers;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public SqliteOptions build() {
            return new SqliteOptions(file, durability, busyTimeout, readers, clock);
        }
    }
}

package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MemoryStore;
import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.Scope;
import dev.engram.memory.SqliteOptions;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code engram schedule list|add|cancel}, and {@code engram chat} delivering a schedule that fell due while it was not running. */
class ScheduleCommandsTest {
    @TempDir
    Path home;

    @TempDir
    Path work;

    @AfterEach
    void resetStreams() {
        ChatCommand.testInput = null;
    }

    private Cli.Run ok(String... args) {
        return Cli.ok(home, args);
    }

    private static void oneLineError(Cli.Run r, int exit, String contains) {
        Cli.oneLineError(r, exit, contains);
    }

    @Test
    void schedulesAreAddedListedAndCancelledPerUser() {
        ok("agent", "create", "assistant", "--user", "ana", "--model", "openai:gpt-4o-mini");
        String added = ok("schedule", "add", "Time to stretch", "--agent", "assistant", "--user", "ana", "--in", "30m").out();
        assertThat(added).startsWith("Scheduled sched-").contains("for agent 'assistant': next at ");
        String id = added.substring("Scheduled ".length(), added.indexOf(' ', "Scheduled ".length()));
        ok("schedule", "add", "Weekday plan", "--agent", "assistant", "--user", "ana", "--cron", "0 9 * * 1-5",
                "--timezone", "Europe/Paris");

        String list = ok("schedule", "list", "--user", "ana").out();
        assertThat(list.lines()).hasSize(2);
        assertThat(list).contains(id).contains("Time to stretch").contains("cron '0 9 * * 1-5' Europe/Paris");
        assertThat(ok("schedule", "list", "--user", "ben").out()).isEqualTo("No waiting schedules for user 'ben'.\n");

        oneLineError(Cli.run(home, "schedule", "cancel", id, "--user", "ben"), 1, "User 'ben' has no schedule '" + id + "'");
        assertThat(ok("schedule", "list", "--user", "ana", "--agent", "assistant").out()).contains(id);
        assertThat(ok("schedule", "cancel", id, "--user", "ana").out()).isEqualTo("Cancelled " + id + "; it will not fire again.\n");
        assertThat(ok("schedule", "cancel", id, "--user", "ana").out()).contains("had already been cancelled; nothing changed");
        assertThat(ok("schedule", "list", "--user", "ana").out()).doesNotContain(id);
        assertThat(ok("schedule", "list", "--user", "ana", "--all").out()).contains(id + "  assistant    cancelled");
    }

    @Test
    void badSchedulesAreRefusedWithOneLineAndNothingIsStored() {
        ok("agent", "create", "assistant", "--user", "ana", "--model", "openai:gpt-4o-mini");
        oneLineError(Cli.run(home, "schedule", "add", "x", "--agent", "assistant", "--user", "ana", "--in", "soon"), 2,
                "--in takes a number and a unit");
        oneLineError(Cli.run(home, "schedule", "add", "x", "--agent", "assistant", "--user", "ana", "--cron", "every day"), 1,
                "not a Unix cron expression");
        oneLineError(Cli.run(home, "schedule", "add", "x", "--agent", "assistant", "--user", "ana", "--at", "2020-01-01T09:00:00Z"),
                1, "not in the future");
        oneLineError(Cli.run(home, "schedule", "add", "x", "--agent", "assistant", "--user", "ana", "--cron", "0 9 * * *",
                "--timezone", "Mars/Olympus"), 2, "--timezone takes an IANA zone id");
        oneLineError(Cli.run(home, "schedule", "add", "x", "--agent", "assistant", "--user", "ana", "--cron", "* * * * *"), 1,
                "schedules may fire at most once every 5 minutes");
        oneLineError(Cli.run(home, "schedule", "add", "x", "--agent", "assistant", "--user", "ana", "--at",
                "9999-01-01T09:00:00Z"), 1, "is more than 1825 days ahead");
        assertThat(Cli.run(home, "schedule", "add", "x", "--agent", "assistant", "--user", "ana").exit()).isEqualTo(2);
        oneLineError(Cli.run(home, "schedule", "add", "x", "--agent", "nobody", "--user", "ana", "--in", "5m"), 1,
                "User 'ana' has no agent named 'nobody'");
        assertThat(ok("schedule", "list", "--user", "ana", "--all").out()).isEqualTo("No schedules for user 'ana'.\n");
    }

    /**
     * A reminder fell due an hour ago, while no chat ran: the next {@code engram chat} of that user delivers it,
     * marked late, and prints the agent's answer. (The schedule is written by a store whose clock is an hour behind,
     * so that it could be set for a time that has now passed.)
     */
    @Test
    void chatDeliversAReminderThatFellDueWhileItWasNotRunning() throws Exception {
        Path script = Files.writeString(work.resolve("chat.json"), """
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "You wanted to call your sister!"}}],
                            "expect_in_prompt": ["LATE: due", "Remind Ana to call her sister"]}]}""");
        ok("agent", "create", "assistant", "--user", "ana", "--model", "script:" + script);
        Scope ana = Scope.of("ana", "assistant");
        String id;
        try (MemoryStore behind = MemoryStore.sqlite(SqliteOptions.builder(home.resolve("memory.db"))
                .clock(Clock.offset(Clock.systemUTC(), Duration.ofHours(-1))).build())) {
            ana = behind.agents().findByName("ana", "assistant").getFirst().scope();
            id = behind.schedules().create(ana, "default", "Remind Ana to call her sister",
                    ScheduleTiming.once(Instant.now().minus(Duration.ofMinutes(30)))).id();
        }
        Scope scope = ana;
        ChatCommand.testInput = new InputStream() {
            private ByteArrayInputStream lines;

            @Override
            public int read() {
                if (lines == null) {
                    awaitDelivery(scope, id);
                    lines = new ByteArrayInputStream("/exit\n".getBytes(StandardCharsets.UTF_8));
                }
                return lines.read();
            }
        };
        Cli.Run r = ok("chat", "--user", "ana");
        assertThat(r.out()).contains("(scheduled message " + id + " to 'assistant', delivered late: Remind Ana to call her sister)")
                .contains("assistant > You wanted to call your sister!");
        assertThat(ok("schedule", "list", "--user", "ana", "--all").out()).contains(id + "  assistant    done");
    }

    /** Waits (at most 30 s) until the schedule has fired, reading the store as another process would. */
    private void awaitDelivery(Scope scope, String id) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            try (MemoryStore look = MemoryStore.sqlite(home.resolve("memory.db"))) {
                Schedule s = look.schedules().get(scope.userId(), id).orElseThrow();
                if (s.runs() > 0) {
                    return;
                }
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

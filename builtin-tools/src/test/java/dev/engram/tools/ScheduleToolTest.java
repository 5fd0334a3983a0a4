package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.ManualClock;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.Scope;
import dev.engram.memory.SqliteOptions;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code schedule} through the real pipeline over a SQLite store on a manual clock. */
class ScheduleToolTest {
    private static final Instant T0 = Instant.parse("2026-11-22T08:00:00Z");
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope BEN = Scope.of("ben", "helper");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private MemoryStore store;
    private ToolRegistry registry;

    @BeforeEach
    void setUp() {
        store = MemoryStore.sqlite(SqliteOptions.builder(MigratedSqlite.at(dir.resolve("memory.db"))).clock(clock).build());
        registry = ToolRegistry.create().register(BuiltinTools.schedule(store));
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private ToolResult call(Scope scope, String args) {
        ToolContext ctx = ToolContext.builder().userId(scope.userId()).agentId(scope.agentId()).sessionId("s1").build();
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build().execute(ToolCall.of("schedule", args), ctx);
    }

    private List<Schedule> schedules(Scope scope) {
        return store.schedules().list(scope);
    }

    @Test
    void inMinutesSchedulesAOneOffInTheCallersSession() {
        ToolResult r = call(ANA, "{\"operation\":\"create\",\"message\":\"Remind Ana to call her sister\",\"in_minutes\":90}");
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.SUCCESS);
        Schedule s = schedules(ANA).get(0);
        assertThat(s.timing()).isEqualTo(ScheduleTiming.once(Instant.parse("2026-11-22T09:30:00Z")));
        assertThat(s.sessionId()).isEqualTo("s1");
        assertThat(s.message()).isEqualTo("Remind Ana to call her sister");
        assertThat(r.content()).startsWith("Scheduled " + s.id()).contains("fires next at 2026-11-22T09:30:00Z")
                .contains("it is now 2026-11-22T08:00:00Z");
    }

    @Test
    void atTakesAnOffsetTimeAndCronRepeatsInItsZone() {
        assertThat(call(ANA, "{\"operation\":\"create\",\"message\":\"dentist\",\"at\":\"2026-11-23T09:00:00+01:00\"}").status())
                .isEqualTo(ToolStatus.SUCCESS);
        ToolResult r = call(ANA, "{\"operation\":\"create\",\"message\":\"weekday plan\",\"cron\":\"0 9 * * 1-5\","
                + "\"timezone\":\"Europe/Paris\"}");
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(schedules(ANA)).extracting(Schedule::timing).containsExactly(
                ScheduleTiming.once(Instant.parse("2026-11-23T08:00:00Z")),
                ScheduleTiming.cron("0 9 * * 1-5", ZoneId.of("Europe/Paris")));
        // Sunday 22 November: the next weekday 9:00 in Paris is Monday 08:00 UTC.
        assertThat(schedules(ANA).get(1).nextRunAt()).contains(Instant.parse("2026-11-23T08:00:00Z"));
    }

    @Test
    void badCreatesAreRefusedWithASentenceAndStoreNothing() {
        String[][] cases = {
                {"{\"operation\":\"create\",\"message\":\"x\"}", "exactly one of in_minutes, at"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"in_minutes\":5,\"cron\":\"0 9 * * *\"}", "exactly one"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"in_minutes\":0}", "in_minutes must be between 1"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"at\":\"tomorrow at 9\"}", "ISO-8601"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"at\":\"2026-11-21T09:00:00Z\"}", "not in the future"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"cron\":\"every day\"}", "not a Unix cron expression"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"cron\":\"* * * * *\"}", "schedules may fire at most once every 5 minutes"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"at\":\"9999-01-01T09:00:00Z\"}", "is more than 1825 days ahead"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"in_minutes\":100000000}", "in_minutes must be between 1 and 2628000"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"cron\":\"0 9 * * *\",\"timezone\":\"Mars/Olympus\"}", "IANA"},
                {"{\"operation\":\"create\",\"message\":\"x\",\"in_minutes\":5,\"timezone\":\"UTC\"}", "timezone goes with cron"},
                {"{\"operation\":\"create\",\"message\":\"  \",\"in_minutes\":5}", "must not be"},
        };
        for (String[] c : cases) {
            ToolResult r = call(ANA, c[0]);
            assertThat(r.status()).as(c[0]).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(r.content()).as(c[0]).contains(c[1]);
        }
        assertThat(store.schedules().list("ana")).isEmpty();
    }

    @Test
    void listShowsOnlyThisAgentsSchedulesAndTheTime() {
        call(ANA, "{\"operation\":\"create\",\"message\":\"mine\",\"in_minutes\":10}");
        call(ANA_COACH, "{\"operation\":\"create\",\"message\":\"the coach's\",\"in_minutes\":10}");
        call(BEN, "{\"operation\":\"create\",\"message\":\"ben's\",\"in_minutes\":10}");
        String list = call(ANA, "{\"operation\":\"list\"}").content();
        assertThat(list).startsWith("It is now 2026-11-22T08:00:00Z.").contains("\"mine\"").doesNotContain("coach's", "ben's");
        assertThat(call(Scope.of("cleo", "helper"), "{\"operation\":\"list\"}").content()).endsWith("You have no schedules.");
    }

    @Test
    void cancelStopsOwnSchedulesAndCannotReachAnotherAgentsOrUsers() {
        call(ANA, "{\"operation\":\"create\",\"message\":\"mine\",\"in_minutes\":10}");
        call(BEN, "{\"operation\":\"create\",\"message\":\"ben's\",\"in_minutes\":10}");
        call(ANA_COACH, "{\"operation\":\"create\",\"message\":\"the coach's\",\"in_minutes\":10}");
        String anaId = schedules(ANA).get(0).id();
        for (Scope other : List.of(BEN, ANA_COACH)) {
            ToolResult r = call(other, "{\"operation\":\"cancel\",\"schedule_id\":\"" + anaId + "\"}");
            assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(r.content()).contains("You have no schedule '" + anaId + "'");
        }
        assertThat(schedules(ANA).get(0).active()).isTrue();
        assertThat(call(ANA, "{\"operation\":\"cancel\",\"schedule_id\":\"" + anaId + "\"}").content()).startsWith("Cancelled " + anaId);
        assertThat(schedules(ANA).get(0).status()).isEqualTo(Schedule.Status.CANCELLED);
        assertThat(call(ANA, "{\"operation\":\"cancel\",\"schedule_id\":\"" + anaId + "\"}").content())
                .contains("had already been cancelled; nothing changed");
        assertThat(schedules(BEN).get(0).active()).isTrue();
        assertThat(schedules(ANA_COACH).get(0).active()).isTrue();
    }
}

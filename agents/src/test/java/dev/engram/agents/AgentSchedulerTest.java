package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.ManualClock;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleLimits;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scheduled messages delivered as turns, on a clock the test moves: on time, late after a restart, recurring, cancelled, per user. */
class AgentSchedulerTest {
    private static final Instant T0 = Instant.parse("2026-11-22T08:00:00Z");
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope BEN = Scope.of("ben", "helper");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private AgentFixture open(ScriptedChatModel model) {
        AgentFixture f = new AgentFixture(dir);
        f.clock = clock;
        return f.open("script:s", model);
    }

    private Agent agent(String user) {
        return fx.runtime.create(AgentDefinition.builder(user).id("helper").model("script:s")
                .tools(List.of("send_message", "schedule")).build());
    }

    private List<String> userMessages(Scope scope) {
        return fx.messages(scope).stream().filter(m -> m.role() == MessageRole.USER).map(ConversationMessage::content).toList();
    }

    @Test
    void theAgentSetsAReminderWithItsToolAndReceivesItAsATurnWhenDue() {
        fx = open(script("""
                {"turns": [
                  {"tool_calls": [{"name": "schedule", "arguments": {"operation": "create", "in_minutes": 30,
                     "message": "Remind Ana to call her sister.", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "I will remind you in 30 minutes."}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Time to call your sister!"}}],
                   "expect_in_prompt": ["[Scheduled message sched-", "Remind Ana to call her sister."]}
                ]}"""));
        Agent agent = agent("ana");
        AgentResponse first = agent.send("s1", "Remind me to call my sister in half an hour.");
        assertThat(first.reply()).as(first.toString()).contains("I will remind you in 30 minutes.");
        Schedule s = fx.store.schedules().list(ANA).get(0);
        assertThat(s.sessionId()).isEqualTo("s1");

        clock.advance(Duration.ofMinutes(29));
        assertThat(fx.runtime.scheduler().runDue()).as("not due yet").isEmpty();
        clock.advance(Duration.ofMinutes(1));
        List<ScheduledDelivery> delivered = fx.runtime.scheduler().runDue();

        assertThat(delivered).hasSize(1);
        ScheduledDelivery d = delivered.get(0);
        assertThat(d.late()).isFalse();
        assertThat(d.error()).isEmpty();
        assertThat(d.response().orElseThrow().reply()).contains("Time to call your sister!");
        assertThat(d.message()).startsWith("[Scheduled message " + s.id() + ", set for 2026-11-22T08:30:00Z]\n")
                .endsWith("Remind Ana to call her sister.").doesNotContain("LATE");
        assertThat(userMessages(ANA)).last().isEqualTo(d.message());
        assertThat(fx.messages(ANA)).extracting(ConversationMessage::sessionId).containsOnly("s1");
        assertThat(fx.store.schedules().get("ana", s.id()).orElseThrow().status()).isEqualTo(Schedule.Status.DONE);
        assertThat(fx.runtime.scheduler().runDue()).as("delivered once").isEmpty();
    }

    @Test
    void aFiringDueWhileTheRuntimeWasDownIsDeliveredOnceLateAfterTheRestart() {
        fx = open(script("{\"turns\": []}"));
        agent("ana");
        Schedule s = fx.store.schedules().create(ANA, "default", "Check on the bread dough.",
                ScheduleTiming.once(T0.plus(Duration.ofMinutes(10))));
        fx.close();

        clock.advance(Duration.ofHours(3));
        fx = open(script("{\"turns\": [{\"text\": \"The dough!\", \"expect_in_prompt\": [\"LATE: due 2026-11-22T08:10:00Z\"]}]}"));
        List<ScheduledDelivery> delivered = fx.runtime.scheduler().runDue();

        assertThat(delivered).hasSize(1);
        assertThat(delivered.get(0).late()).isTrue();
        assertThat(delivered.get(0).missed()).isZero();
        assertThat(delivered.get(0).message()).contains("LATE: due 2026-11-22T08:10:00Z, delivered 2026-11-22T11:00:00Z "
                + "because the scheduler was not running").endsWith("Check on the bread dough.");
        assertThat(delivered.get(0).response().orElseThrow().reply()).contains("The dough!");
        assertThat(fx.store.schedules().get("ana", s.id()).orElseThrow().runs()).isEqualTo(1);
        assertThat(fx.runtime.scheduler().runDue()).isEmpty();
        assertThat(userMessages(ANA)).hasSize(1);
    }

    @Test
    void aRecurringScheduleFiresAtEachTimeAndOnceForFiringsMissed() {
        fx = open(script("{\"turns\": [{\"text\": \"one\"}, {\"text\": \"two\"}, {\"text\": \"three\"}]}"));
        agent("ana");
        Schedule s = fx.store.schedules().create(ANA, "default", "Hourly: stretch.", ScheduleTiming.cron("0 * * * *", ZoneOffset.UTC));

        clock.set(Instant.parse("2026-11-22T09:00:00Z"));
        assertThat(fx.runtime.scheduler().runDue()).singleElement().satisfies(d -> assertThat(d.late()).isFalse());
        clock.set(Instant.parse("2026-11-22T10:00:20Z"));
        assertThat(fx.runtime.scheduler().runDue()).singleElement().satisfies(d -> assertThat(d.late()).isFalse());
        clock.set(Instant.parse("2026-11-22T13:30:00Z"));  // 11:00, 12:00 and 13:00 passed
        List<ScheduledDelivery> late = fx.runtime.scheduler().runDue();

        assertThat(late).singleElement().satisfies(d -> {
            assertThat(d.late()).isTrue();
            assertThat(d.missed()).isEqualTo(2);
            assertThat(d.message()).contains("LATE: due 2026-11-22T11:00:00Z").contains("2 later firings were missed too");
        });
        Schedule after = fx.store.schedules().get("ana", s.id()).orElseThrow();
        assertThat(after.runs()).isEqualTo(3);
        assertThat(after.nextRunAt()).contains(Instant.parse("2026-11-22T14:00:00Z"));
        assertThat(userMessages(ANA)).hasSize(3);
        assertThat(fx.runtime.scheduler().runDue()).isEmpty();
    }

    @Test
    void aCancelledScheduleNeverReachesTheAgent() {
        fx = open(script("{\"turns\": []}"));
        agent("ana");
        Schedule s = fx.store.schedules().create(ANA, "default", "never", ScheduleTiming.once(T0.plus(Duration.ofMinutes(5))));
        assertThat(fx.store.schedules().cancel("ana", s.id())).isTrue();
        clock.advance(Duration.ofHours(1));
        assertThat(fx.runtime.scheduler().runDue()).isEmpty();
        assertThat(fx.messages(ANA)).isEmpty();
    }

    @Test
    void twoUsersSchedulesReachOnlyTheirOwnAgents() {
        fx = open(script("{\"turns\": [{\"text\": \"ok\"}, {\"text\": \"ok\"}]}"));
        agent("ana");
        agent("ben");
        fx.store.schedules().create(ANA, "default", "Ana's reminder", ScheduleTiming.once(T0.plus(Duration.ofMinutes(5))));
        fx.store.schedules().create(BEN, "default", "Ben's reminder", ScheduleTiming.once(T0.plus(Duration.ofMinutes(5))));
        clock.advance(Duration.ofMinutes(5));

        assertThat(fx.runtime.scheduler().runDue(scope -> scope.userId().equals("ben"))).extracting(d -> d.schedule().scope())
                .containsExactly(BEN);
        assertThat(userMessages(ANA)).as("a scheduler for ben's agents leaves ana's schedule waiting").isEmpty();
        assertThat(fx.runtime.scheduler().runDue()).extracting(d -> d.schedule().scope()).containsExactly(ANA);
        assertThat(userMessages(ANA)).singleElement().asString().endsWith("Ana's reminder");
        assertThat(userMessages(BEN)).singleElement().asString().endsWith("Ben's reminder");
        assertThat(fx.store.schedules().list("ana")).extracting(Schedule::message).containsExactly("Ana's reminder");
    }

    @Test
    void theScheduleOfADeletedAgentIsCancelledAndTheOthersStillFire() {
        fx = open(script("{\"turns\": [{\"text\": \"ok\"}]}"));
        agent("ana");
        agent("ben");
        Schedule orphan = fx.store.schedules().create(ANA, "default", "to nobody", ScheduleTiming.once(T0.plusSeconds(60)));
        fx.store.schedules().create(BEN, "default", "to ben", ScheduleTiming.once(T0.plusSeconds(60)));
        fx.runtime.delete("ana", "helper");
        clock.advance(Duration.ofMinutes(1));

        List<ScheduledDelivery> delivered = fx.runtime.scheduler().runDue();
        assertThat(delivered).hasSize(2);
        assertThat(delivered).filteredOn(d -> d.schedule().scope().equals(ANA)).singleElement()
                .satisfies(d -> assertThat(d.error()).hasValueSatisfying(e -> assertThat(e).contains("no longer exists")));
        assertThat(fx.store.schedules().get("ana", orphan.id()).orElseThrow().status()).isEqualTo(Schedule.Status.CANCELLED);
        assertThat(userMessages(BEN)).hasSize(1);
    }

    @Test
    void aStartedSchedulerDeliversOnItsOwnAndTellsItsListeners() throws Exception {
        fx = open(script("{\"turns\": [{\"text\": \"Reminder sent.\"}]}"));
        agent("ana");
        CountDownLatch heard = new CountDownLatch(1);
        List<ScheduledDelivery> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        fx.runtime.scheduler().onDelivery(d -> {
            seen.add(d);
            heard.countDown();
        });
        fx.runtime.scheduler().start(Duration.ofMillis(20));
        fx.store.schedules().create(ANA, "default", "ping", ScheduleTiming.once(T0.plusSeconds(30)));
        clock.advance(Duration.ofSeconds(30));

        assertThat(heard.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen).singleElement().satisfies(d -> assertThat(d.response().orElseThrow().reply()).contains("Reminder sent."));
    }

    @Test
    void aClosedRuntimeDeliversNothingAndTheScheduleWaitsForTheNext() {
        fx = open(script("{\"turns\": []}"));
        agent("ana");
        Schedule s = fx.store.schedules().create(ANA, "default", "later", ScheduleTiming.once(T0.plusSeconds(60)));
        clock.advance(Duration.ofMinutes(2));
        fx.runtime.close();

        assertThat(fx.runtime.scheduler().runDue()).isEmpty();
        Schedule kept = fx.store.schedules().get("ana", s.id()).orElseThrow();
        assertThat(kept.active()).isTrue();
        assertThat(kept.claimedUntil()).isEmpty();
    }

    @Test
    void firingsBeyondTheUsersBudgetAreSkippedLoggedOnceAndNotQueued() {
        AgentFixture f = new AgentFixture(dir);
        f.clock = clock;
        ScriptedChatModel model = script("{\"turns\": [{\"text\": \"one\"}, {\"text\": \"two\"}, {\"text\": \"three\"}, "
                + "{\"text\": \"four\"}]}");
        fx = f.open(b -> b.model("script:s", model).scheduleLimits(ScheduleLimits.defaults().withFirings(2, 3)));
        agent("ana");
        agent("ben");
        for (int i = 0; i < 4; i++) {
            fx.store.schedules().create(ANA, "default", "ping " + i, ScheduleTiming.once(T0.plus(Duration.ofMinutes(10))));
        }
        fx.store.schedules().create(BEN, "default", "ben's", ScheduleTiming.once(T0.plus(Duration.ofMinutes(10))));

        clock.advance(Duration.ofMinutes(10));
        List<ScheduledDelivery> first = fx.runtime.scheduler().runDue();
        assertThat(first).hasSize(5);
        List<ScheduledDelivery> anas = first.stream().filter(d -> d.schedule().scope().equals(ANA)).toList();
        assertThat(anas.stream().filter(d -> d.response().isPresent())).hasSize(2);
        assertThat(anas.stream().filter(d -> d.response().isEmpty())).hasSize(2).allSatisfy(d -> assertThat(d.error())
                .contains("skipped: user 'ana' had 2 scheduled turns in the last hour, the most allowed (2 an hour)"));
        assertThat(first.stream().filter(d -> d.schedule().scope().equals(BEN)).toList())
                .singleElement().satisfies(d -> assertThat(d.response()).as("another user's budget is their own").isPresent());
        // skipped firings are done, not queued for later
        assertThat(fx.store.schedules().list(ANA)).allSatisfy(s -> assertThat(s.status()).isEqualTo(Schedule.Status.DONE));
        assertThat(userMessages(ANA)).hasSize(2);

        // an hour later the hourly budget has room again, but the day's (3) allows only one more
        clock.advance(Duration.ofHours(1));
        fx.store.schedules().create(ANA, "default", "again 1", ScheduleTiming.once(clock.instant().plus(Duration.ofMinutes(5))));
        fx.store.schedules().create(ANA, "default", "again 2", ScheduleTiming.once(clock.instant().plus(Duration.ofMinutes(5))));
        clock.advance(Duration.ofMinutes(5));
        List<ScheduledDelivery> later = fx.runtime.scheduler().runDue();
        assertThat(later.stream().filter(d -> d.response().isPresent())).hasSize(1);
        assertThat(later.stream().filter(d -> d.response().isEmpty())).singleElement().satisfies(d -> assertThat(d.error())
                .contains("skipped: user 'ana' had 3 scheduled turns in the last 24 hours, the most allowed (3 a day)"));
        assertThat(userMessages(ANA)).hasSize(3);
        assertThat(fx.runtime.scheduler().runDue()).isEmpty();
    }

    @Test
    void theScheduleToolRefusesACronFasterThanTheRuntimesMinimumInterval() {
        AgentFixture f = new AgentFixture(dir);
        f.clock = clock;
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "schedule", "arguments": {"operation": "create", "cron": "*/10 * * * *",
                     "message": "Check the build.", "request_heartbeat": true}}]},
                  {"text": "done"}
                ]}""");
        fx = f.open(b -> b.model("script:s", model).scheduleLimits(ScheduleLimits.defaults().withMinInterval(Duration.ofMinutes(15))));
        AgentResponse r = agent("ana").send("s1", "Check the build every ten minutes.");
        assertThat(r.toolResults()).singleElement().satisfies(t -> {
            assertThat(t.isError()).isTrue();
            assertThat(t.content()).contains("cron '*/10 * * * *' fires 10 minutes apart at times; schedules may fire at "
                    + "most once every 15 minutes");
        });
        assertThat(fx.store.schedules().list(ANA)).isEmpty();
    }
}

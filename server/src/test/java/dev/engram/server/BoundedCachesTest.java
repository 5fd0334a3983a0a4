package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the server keeps per agent or per user is bounded: by what is under way, or by a size. */
class BoundedCachesTest {
    @Test
    void aTurnLockIsKeptOnlyWhileATurnHoldsItOrWaitsForIt() throws Exception {
        LocalTurnLocks locks = new LocalTurnLocks();
        for (int i = 0; i < 100; i++) {
            try (TurnLock.Hold hold = locks.acquire(Scope.of("ana", "agent-" + i))) {
                assertThat(locks.size()).isEqualTo(1);
            }
        }
        assertThat(locks.size()).isZero();

        Scope agent = Scope.of("ana", "busy");
        TurnLock.Hold held = locks.acquire(agent);
        List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread next = Thread.ofPlatform().start(() -> {
            try (TurnLock.Hold h = locks.acquire(agent)) {
                order.add("second turn");
            } catch (InterruptedException e) {
                order.add("interrupted");
            }
        });
        Thread interrupted = Thread.ofPlatform().start(() -> {
            Thread.currentThread().interrupt();
            try (TurnLock.Hold h = locks.acquire(agent)) {
                order.add("interrupted waiter ran");
            } catch (InterruptedException e) {
                order.add("interrupted");
            }
        });
        interrupted.join();
        assertThat(locks.size()).isEqualTo(1); // the held one: the interrupted waiter let its count go
        order.add("first turn");
        held.close();
        held.close(); // a second close changes nothing
        next.join();

        assertThat(order).containsExactly("interrupted", "first turn", "second turn");
        assertThat(locks.size()).isZero();
    }

    @Test
    void aUserIsCountedAsWaitingOnlyWhileATurnOfTheirsWaits() {
        WaitingCaps caps = new WaitingCaps(1, 1_000);
        for (int u = 0; u < 100; u++) {
            assertThat(caps.reserve("user" + u)).isEmpty();
        }
        assertThat(caps.users()).isEqualTo(100);
        assertThat(caps.reserve("user0")).get().asString().contains("user 'user0' already has 1 turns waiting");
        for (int u = 0; u < 100; u++) {
            caps.release("user" + u);
        }

        assertThat(caps.users()).isZero();
        assertThat(caps.waiting()).isZero();
        assertThat(caps.reserve("user0")).isEmpty(); // the refused reservation left no count behind
    }

    @Test
    void theUsagesRememberedForTurnChecksStayWithinTheBound() {
        try (MemoryStore store = MemoryStore.inMemory()) {
            QuotaGuard guard = new QuotaGuard(store, 3);
            for (int u = 0; u < 10; u++) {
                guard.turn("user" + u);
                assertThat(guard.remembered()).isBetween(1, 3);
            }
            guard.turn("user9"); // remembered: no new entry
            assertThat(guard.remembered()).isBetween(1, 3);
        }
    }

    @Test
    void consoleNamesThatAreNoFileAreNotRemembered() {
        ConsoleAssets assets = new ConsoleAssets();
        assertThat(assets.asset("index.html")).isPresent();
        for (int i = 0; i < 1_000; i++) {
            assertThat(assets.asset("missing-" + i + ".js")).isEmpty();
        }

        assertThat(assets.cached()).isEqualTo(1);
        assertThat(assets.asset("index.html")).isPresent();
    }
}

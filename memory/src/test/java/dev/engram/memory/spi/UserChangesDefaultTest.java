package dev.engram.memory.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ChangeEvent;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link Rows#userChangesSince}'s default, for a backend that implements only {@link Rows#changesSince}: it pages through
 * the whole log after the given sequence number and keeps the user's events, in order, up to the limit.
 */
class UserChangesDefaultTest {
    /** A log of {@code size} events, every third one of "ana", the others of "ben". */
    private static List<ChangeEvent> log(int size) {
        List<ChangeEvent> log = new ArrayList<>();
        for (int seq = 1; seq <= size; seq++) {
            log.add(new ChangeEvent(seq, ChangeEvent.Entity.MESSAGE, Integer.toString(seq), ChangeEvent.Op.UPSERT,
                    seq % 3 == 0 ? "ana" : "ben", Optional.of("helper")));
        }
        return log;
    }

    /** Rows whose only own method is {@code changesSince} over {@code log}, counting its calls; the rest are defaults. */
    private static Rows over(List<ChangeEvent> log, AtomicInteger pages) {
        InvocationHandler h = (proxy, method, args) -> {
            if (method.getName().equals("changesSince")) {
                pages.incrementAndGet();
                long after = (Long) args[0];
                int max = (Integer) args[1];
                return log.stream().filter(e -> e.seq() > after).limit(max).toList();
            }
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            throw new UnsupportedOperationException(method.getName());
        };
        return (Rows) Proxy.newProxyInstance(Rows.class.getClassLoader(), new Class<?>[] {Rows.class}, h);
    }

    @Test
    void theDefaultPagesThroughTheLogAndKeepsTheUsersEventsInOrder() {
        List<ChangeEvent> log = log(2 * Rows.USER_CHANGES_PAGE + 500);
        AtomicInteger pages = new AtomicInteger();
        Rows rows = over(log, pages);

        List<ChangeEvent> ana = rows.userChangesSince("ana", 0, 10_000);
        assertThat(ana).isEqualTo(log.stream().filter(e -> e.userId().equals("ana")).toList());
        assertThat(pages).hasValue(3); // two full pages and the last, short one

        assertThat(rows.userChangesSince("ana", 10, 2)).extracting(ChangeEvent::seq).containsExactly(12L, 15L);
        assertThat(rows.userChangesSince("ben", log.getLast().seq() - 3, 10)).extracting(ChangeEvent::seq)
                .containsExactly(log.getLast().seq() - 2, log.getLast().seq());
        assertThat(rows.userChangesSince("carla", 0, 10)).isEmpty();
        assertThat(rows.userChangesSince("ana", log.getLast().seq(), 10)).isEmpty();
    }

    @Test
    void theDefaultStopsReadingOnceItHasTheLimit() {
        AtomicInteger pages = new AtomicInteger();
        Rows rows = over(log(3 * Rows.USER_CHANGES_PAGE), pages);
        assertThat(rows.userChangesSince("ana", 0, 5)).hasSize(5);
        assertThat(pages).hasValue(1);
    }
}

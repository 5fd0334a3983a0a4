package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Advisory locks across two "processes" (two lock pools) on one database. */
class PostgresLocksTest {
    private static PostgresServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PostgresServer.sharedOrSkip(); // the cluster shared by the test JVM: nothing to close
    }

    @Test
    void aLockHeldByOneProcessMakesTheOtherWaitAndOtherNamesDoNot() throws Exception {
        String url = server.jdbcUrl("public");
        try (PostgresLocks one = PostgresLocks.open(url, "postgres", "", 4);
                PostgresLocks two = PostgresLocks.open(url, "postgres", "", 4)) {
            PostgresLocks.Held held = one.acquire("ana/helper");
            CountDownLatch acquired = new CountDownLatch(1);
            CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
                try (PostgresLocks.Held h = two.acquire("ana/helper")) {
                    acquired.countDown();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try (PostgresLocks.Held other = two.acquire("ana/other")) {
                assertThat(other).isNotNull();
            }
            assertThat(acquired.await(300, TimeUnit.MILLISECONDS)).as("the second process waits").isFalse();
            held.close();
            assertThat(acquired.await(10, TimeUnit.SECONDS)).as("and gets it once released").isTrue();
            waiter.get(10, TimeUnit.SECONDS);
            try (PostgresLocks.Held again = one.acquire("ana/helper")) {
                assertThat(again).isNotNull();
            }
        }
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> PostgresLocks.open("jdbc:sqlite:x.db", "u", "p", 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a PostgreSQL JDBC URL");
        assertThatThrownBy(() -> PostgresLocks.open(server.jdbcUrl("public"), "postgres", "", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 1 and 1000");
        assertThat(PostgresLocks.key("a")).isNotEqualTo(PostgresLocks.key("b")).isEqualTo(PostgresLocks.key("a"));
    }
}

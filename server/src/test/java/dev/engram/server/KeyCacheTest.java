package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.ApiKey;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A verified key is remembered for the key cache time: a revoked key stops working within it, or at once with none. */
class KeyCacheTest {
    @TempDir
    Path dir;

    private static String idOf(ServerFixture fx, String secret) {
        return fx.store.keys().verify(secret).map(ApiKey::id).orElseThrow();
    }

    @Test
    void withoutACacheARevokedKeyIsRefusedAtOnce() {
        try (ServerFixture fx = new ServerFixture(dir, b -> b.keyCacheTtl(Duration.ZERO))) {
            assertThat(fx.get(fx.ana, "/v1/agents/").status()).isEqualTo(200);
            fx.store.keys().revoke(idOf(fx, fx.ana));
            assertThat(fx.get(fx.ana, "/v1/agents/").status()).isEqualTo(401);
            assertThat(fx.get(fx.ben, "/v1/agents/").status()).isEqualTo(200);
        }
    }

    @Test
    void aRevokedKeyWorksUntilTheCacheTimeEndsThenIsRefused() throws InterruptedException {
        try (ServerFixture fx = new ServerFixture(dir, b -> b.keyCacheTtl(Duration.ofMillis(300)))) {
            long verifiedFrom = System.nanoTime(); // the key is remembered until at least 300 ms after this
            assertThat(fx.get(fx.ana, "/v1/agents/").status()).isEqualTo(200);
            fx.store.keys().revoke(idOf(fx, fx.ana));
            int status = fx.get(fx.ana, "/v1/agents/").status();
            if (System.nanoTime() - verifiedFrom < Duration.ofMillis(250).toNanos()) {
                assertThat(status).as("a key verified moments ago is taken without asking the store").isEqualTo(200);
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (status != 401 && System.nanoTime() < deadline) {
                Thread.sleep(50);
                status = fx.get(fx.ana, "/v1/agents/").status();
            }
            assertThat(status).as("the revoked key is refused once the cache time passed").isEqualTo(401);
            // and stays refused: a key that failed is not remembered as good
            assertThat(fx.get(fx.ana, "/v1/agents/").status()).isEqualTo(401);
        }
    }

    @Test
    void aWrongKeyIsNeverRemembered() {
        try (ServerFixture fx = new ServerFixture(dir, b -> b.keyCacheTtl(Duration.ofHours(1)))) {
            assertThat(fx.get("engram_not-a-key", "/v1/agents/").status()).isEqualTo(401);
            assertThat(fx.get("engram_not-a-key", "/v1/agents/").status()).isEqualTo(401);
            assertThat(fx.get(fx.ana, "/v1/agents/").status()).isEqualTo(200);
        }
    }

    @Test
    void aNegativeCacheTimeIsRefused() {
        try (ServerFixture fx = new ServerFixture(dir)) {
            assertThatThrownBy(() -> EngramServer.builder(fx.store, fx.search).keyCacheTtl(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be negative");
        }
    }
}

package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ApiKey;
import dev.engram.memory.MemoryStore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code engram keys create|list|revoke}: a key printed once, verifiable as its user, listed without it, revoked. */
class KeysCommandsTest {
    @TempDir
    Path home;

    @Test
    void aKeyIsCreatedForAUserListedWithoutItselfAndRevoked() {
        Cli.Run created = Cli.ok(home, "keys", "create", "--user", "ana", "--name", "ana's laptop");
        String secret = created.out().strip();
        assertThat(secret).startsWith("engram_");
        assertThat(created.err()).contains("Created key-").contains("for user 'ana'").contains("cannot be shown again");
        String admin = Cli.ok(home, "keys", "create", "--admin").out().strip();

        String id;
        try (MemoryStore store = MemoryStore.sqlite(home.resolve("memory.db"))) {
            ApiKey key = store.keys().verify(secret).orElseThrow();
            assertThat(key.userId()).contains("ana");
            assertThat(store.keys().verify(admin).orElseThrow().admin()).isTrue();
            id = key.id();
        }
        String list = Cli.ok(home, "keys", "list").out();
        assertThat(list).contains(id).contains("user ana").contains("ana's laptop").contains("admin").doesNotContain(secret);

        assertThat(Cli.ok(home, "keys", "revoke", id).out()).isEqualTo("Revoked " + id + ".\n");
        Cli.oneLineError(Cli.run(home, "keys", "revoke", id), 1, "There is no key '" + id + "'");
        try (MemoryStore store = MemoryStore.sqlite(home.resolve("memory.db"))) {
            assertThat(store.keys().verify(secret)).isEmpty();
        }
    }

    @Test
    void aKeyNeedsExactlyOneOwner() {
        assertThat(Cli.run(home, "keys", "create").exit()).isEqualTo(2);
        assertThat(Cli.run(home, "keys", "create", "--user", "ana", "--admin").exit()).isEqualTo(2);
        Cli.oneLineError(Cli.run(home, "keys", "create", "--user", " "), 1, "user id must not be null or blank");
        assertThat(Cli.ok(home, "keys", "list").out()).isEmpty();
    }
}

package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MemoryStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code engram serve}'s start when it cannot start: the store opens on a thread of its own while the server is built,
 * and a store that cannot open, or a port that is taken, still fails the start with one sentence and exit 1, leaving
 * nothing listening and the home usable by the next command.
 */
class ServeStartFailuresTest {
    @TempDir
    Path home;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Whether nothing listens on {@code port} of the loopback address: it can be bound. */
    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aStoreThatCannotOpenFailsTheStartAndNothingListens() throws Exception {
        Files.createDirectories(home.resolve("memory.db")); // a directory where the SQLite file should be
        int port = freePort();
        Cli.Run r = Cli.run(home, "serve", "--port", String.valueOf(port));
        Cli.oneLineError(r, 1, "memory.db");
        assertThat(r.err()).doesNotContain("listening on");
        assertThat(free(port)).as("port %d is free after the failed start", port).isTrue();
    }

    @Test
    void aStoreWrittenByANewerEngramFailsTheStartSayingSo() throws Exception {
        MemoryStore.sqlite(home.resolve("memory.db")).close();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + home.resolve("memory.db"));
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO engram_schema_history (installed_rank, version, description, type, script, checksum, "
                    + "installed_by, execution_time, success) VALUES (99, '99', 'from the future', 'SQL', 'V99__future.sql', "
                    + "0, 'test', 0, 1)");
        }
        int port = freePort();
        Cli.Run r = Cli.run(home, "serve", "--port", String.valueOf(port));
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).startsWith("engram: ").contains("newer").doesNotContain("listening on").doesNotContain("\tat ");
        assertThat(free(port)).isTrue();
    }

    @Test
    void aPortInUseFailsTheStartAndTheStoreIsClosedAgain() throws Exception {
        Cli.ok(home, "keys", "create", "--user", "ana");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Cli.Run r = Cli.run(home, "serve", "--port", String.valueOf(taken.getLocalPort()));
            assertThat(r.exit()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).startsWith("engram: Cannot listen on 127.0.0.1, port " + taken.getLocalPort())
                    .doesNotContain("listening on").doesNotContain("\tat ");
        }
        // The failed start closed the store it opened: the next command uses the home as usual.
        assertThat(Cli.ok(home, "keys", "list").out()).contains("ana");
    }

    @Test
    void aBadLogFormatIsAUsageErrorThatOpensNoStore() {
        Cli.Run r = Cli.runAsIs(home, Map.of(), "serve", "--port", "0", "--log-format", "xml");
        Cli.oneLineError(r, 2, "--log-format is text or json");
        assertThat(home.resolve("memory.db")).doesNotExist();
    }
}

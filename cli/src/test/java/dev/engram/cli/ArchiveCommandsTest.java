package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MemoryStore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code engram archive create|list|insert|attach|detach|rm}, and {@code engram search} over an agent that an archive
 * is attached to: the archive's passages are found, each shown with its archive, until it is detached.
 */
class ArchiveCommandsTest {
    @TempDir
    Path home;

    private Cli.Run ok(String... args) {
        return Cli.ok(home, args);
    }

    @Test
    void anArchiveIsCreatedFilledAttachedSearchedDetachedAndRemoved() {
        ok("agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini");
        ok("agent", "create", "coach", "--user", "ana", "--model", "openai:gpt-4o-mini");
        String created = ok("archive", "create", "handbook", "--description", "Company policies", "--user", "ana").out();
        assertThat(created).startsWith("Created archive-").contains("(handbook)");
        ok("archive", "insert", "handbook", "Holiday allowance is 25 days a year", "--tag", "hr", "--user", "ana");
        assertThat(ok("archive", "attach", "handbook", "--agent", "helper", "--user", "ana").out())
                .isEqualTo("Attached handbook to helper.\n");
        ok("archive", "attach", "handbook", "--agent", "coach", "--user", "ana");
        assertThat(ok("archive", "attach", "handbook", "--agent", "coach", "--user", "ana").out()).startsWith("Already attached");

        String list = ok("archive", "list", "--user", "ana").out();
        assertThat(list).contains("handbook", "1 passages", "agents: helper, coach", "Company policies");
        assertThat(ok("archive", "list", "--user", "ben").out()).isEqualTo("No archives.\n");

        String found = ok("search", "holiday allowance", "--agent", "coach", "--user", "ana", "--domain", "archival").out();
        assertThat(found).contains("archive:handbook", "Holiday allowance is 25 days a year");
        String json = ok("search", "holiday allowance", "--agent", "helper", "--user", "ana", "--json").out();
        assertThat(json).contains("\"archive_name\"", "handbook");

        assertThat(ok("archive", "detach", "handbook", "--agent", "helper", "--user", "ana").out())
                .isEqualTo("Detached handbook from helper.\n");
        assertThat(ok("search", "holiday allowance", "--agent", "helper", "--user", "ana", "--domain", "archival").out())
                .doesNotContain("Holiday allowance");
        assertThat(ok("archive", "rm", "handbook", "--user", "ana").out()).startsWith("Deleted archive-");
        assertThat(ok("search", "holiday allowance", "--agent", "coach", "--user", "ana", "--domain", "archival").out())
                .doesNotContain("Holiday allowance");
        try (MemoryStore store = MemoryStore.sqlite(home.resolve("memory.db"))) {
            assertThat(store.archives().list("ana")).isEmpty();
            assertThat(store.usage("ana").archivalEntries()).isZero();
        }
    }

    @Test
    void badArchiveCommandsSayWhatIsWrongAndChangeNothing() {
        ok("agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini");
        ok("archive", "create", "handbook", "--user", "ana");
        Cli.oneLineError(Cli.run(home, "archive", "insert", "nothing", "text", "--user", "ana"), 1, "has no archive 'nothing'");
        Cli.oneLineError(Cli.run(home, "archive", "attach", "handbook", "--agent", "helper", "--user", "ben"), 1,
                "has no agent named 'helper'");
        Cli.oneLineError(Cli.run(home, "archive", "detach", "handbook", "--agent", "helper", "--user", "ana"), 1,
                "is not attached");
        Cli.oneLineError(Cli.run(home, "archive", "create", " ", "--user", "ana"), 1, "name");
        Cli.oneLineError(Cli.run(home, "archive", "rm", "handbook", "--user", "ben"), 1, "has no archive 'handbook'");
        ok("archive", "create", "handbook", "--user", "ana");
        Cli.oneLineError(Cli.run(home, "archive", "rm", "handbook", "--user", "ana"), 1, "2 archives named 'handbook'");
        assertThat(ok("archive", "list", "--user", "ana").out().lines()).hasSize(2).allMatch(l -> l.contains("0 passages"));
    }
}

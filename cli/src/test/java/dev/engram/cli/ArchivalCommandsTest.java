package dev.engram.cli;

import static dev.engram.cli.Cli.oneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code engram archival supersede} and {@code history}: an agent's archival facts over time. */
class ArchivalCommandsTest {
    @TempDir
    Path home;

    private Cli.Run ok(String... args) {
        return Cli.ok(home, args);
    }

    @BeforeEach
    void agent() {
        ok("agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini");
    }

    private String inserted(Cli.Run run) {
        return run.out().substring("Inserted ".length()).replaceAll("[.;].*", "").strip();
    }

    @Test
    void anEntryIsSupersededAndItsHistoryKeepsTheOldVersionWhileSearchFindsTheNewOne() {
        String lisbon = inserted(ok("archival", "insert", "Ana lives in Lisbon", "--agent", "helper", "--user", "ana",
                "--label", "home", "--tag", "place", "--metadata", "{\"source\": \"chat\"}"));
        Cli.Run moved = ok("archival", "supersede", lisbon, "Ana lives in Porto", "--agent", "helper", "--user", "ana");
        String porto = inserted(moved);
        assertThat(moved.out()).isEqualTo("Inserted " + porto + "; it supersedes " + lisbon + ".\n");

        List<String> history = ok("archival", "history", porto, "--agent", "helper", "--user", "ana").out().lines().toList();
        assertThat(history).hasSize(2);
        assertThat(history.get(0)).startsWith(lisbon + "  ").endsWith("Ana lives in Lisbon").doesNotContain(".. now");
        assertThat(history.get(1)).startsWith(porto + "  ").endsWith(".. now  Ana lives in Porto");
        assertThat(ok("archival", "list", "--agent", "helper", "--user", "ana").out().lines().toList())
                .singleElement().asString().startsWith(porto + "  [home] [place]").endsWith(" Ana lives in Porto");
        String found = ok("search", "lives", "--agent", "helper", "--user", "ana", "--domain", "archival").out();
        assertThat(found).contains("Porto").doesNotContain("Lisbon");
        assertThat(ok("search", "lives", "--agent", "helper", "--user", "ana", "--domain", "archival", "--filter",
                "{\"source\": \"chat\"}").out()).as("the old entry's metadata passed on").contains("Porto");
    }

    @Test
    void aBadSupersedeIsOneLineAndChangesNothing() {
        String lisbon = inserted(ok("archival", "insert", "Ana lives in Lisbon", "--agent", "helper", "--user", "ana"));
        String porto = inserted(ok("archival", "supersede", lisbon, "Ana lives in Porto", "--agent", "helper", "--user", "ana"));

        oneLineError(Cli.run(home, "archival", "supersede", lisbon, "Ana lives in Faro", "--agent", "helper", "--user", "ana"),
                1, "was superseded by '" + porto + "'");
        oneLineError(Cli.run(home, "archival", "supersede", "archival-none", "x", "--agent", "helper", "--user", "ana"), 1,
                "no archival entry 'archival-none'");
        oneLineError(Cli.run(home, "archival", "supersede", porto, "x", "--agent", "helper", "--user", "ana", "--metadata",
                "[1]"), 2, "--metadata: metadata must be a JSON object");
        oneLineError(Cli.run(home, "archival", "supersede", porto, "x", "--agent", "helper", "--user", "ben"), 1, "helper");
        oneLineError(Cli.run(home, "archival", "history", "archival-none", "--agent", "helper", "--user", "ana"), 1,
                "archival-none");

        assertThat(ok("archival", "list", "--agent", "helper", "--user", "ana").out().lines().toList())
                .singleElement().asString().startsWith(porto + " ").endsWith(" Ana lives in Porto");
        assertThat(ok("archival", "history", lisbon, "--agent", "helper", "--user", "ana").out().lines()).hasSize(2);
    }
}

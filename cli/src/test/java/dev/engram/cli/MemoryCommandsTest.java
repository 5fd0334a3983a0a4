package dev.engram.cli;

import static dev.engram.cli.Cli.oneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.agents.MemoryManager;
import dev.engram.memory.Job;
import dev.engram.memory.JobStatus;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.SqliteOptions;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code engram memory add}: facts extracted by a scripted model, merged, raw, and failures that exit 1. */
class MemoryCommandsTest {
    static final String MESSAGES = """
            [{"role": "user", "content": "I moved from Lisbon to Porto."},
             {"role": "assistant", "content": "How is Porto?"},
             {"role": "user", "content": "Great. I am vegetarian."}]""";

    @TempDir
    Path home;
    @TempDir
    Path work;

    @AfterEach
    void resetInput() {
        MemoryCommands.Add.testInput = null;
    }

    private Cli.Run ok(String... args) {
        return Cli.ok(home, args);
    }

    private Path script(String json) throws Exception {
        return Files.writeString(work.resolve("model-" + System.nanoTime() + ".json"), json);
    }

    @Test
    void factsAreStoredAsNotesAndANearDuplicateIsMergedWhenAddedAgain() throws Exception {
        Path messages = Files.writeString(work.resolve("messages.json"), MESSAGES);
        Path model = script("""
                [{"text": "{\\"facts\\": [\\"The user moved to Porto.\\", \\"The user is vegetarian.\\"]}"}]""");
        Cli.Run first = ok("memory", "add", "--user", "ana", "--model", "script:" + model, messages.toString());
        assertThat(first.out()).contains("stored  note-").contains("The user moved to Porto.")
                .contains("2 stored, 0 merged, 0 failed.");
        assertThat(ok("notes", "list", "--user", "ana").out().lines()).hasSize(2);

        Path again = script("""
                [{"text": "Sure: {\\"facts\\": [\\"the user is vegetarian\\"]}"}]""");
        MemoryCommands.Add.testInput = new ByteArrayInputStream(MESSAGES.getBytes(StandardCharsets.UTF_8));
        Cli.Run second = ok("memory", "add", "--user", "ana", "--model", "script:" + again, "-");
        assertThat(second.out()).contains("merged  note-").contains("(held: The user is vegetarian.)")
                .contains("0 stored, 1 merged, 0 failed.");
        assertThat(ok("notes", "list", "--user", "ana").out().lines()).hasSize(2);
    }

    @Test
    void anAnswerThatNeverParsesExitsOneWithTheErrorAndStoresNothing() throws Exception {
        Path messages = Files.writeString(work.resolve("messages.json"), MESSAGES);
        Path model = script("[{\"text\": \"I cannot help with that.\"}, {\"text\": \"Still no.\"}]");
        Cli.Run r = Cli.run(home, "memory", "add", "--user", "ana", "--model", "script:" + model, messages.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("extraction failed").contains("could not be read").doesNotContain("\tat ");
        assertThat(r.out()).contains("failed: 0 stored");
        assertThat(ok("notes", "list", "--user", "ana").out()).isBlank();
    }

    @Test
    void rawMessagesGoToTheAgentsArchivalMemoryWithoutAModel() throws Exception {
        Path model = script("[]");
        ok("agent", "create", "helper", "--user", "ana", "--model", "script:" + model, "--id", "helper-1");
        Path messages = Files.writeString(work.resolve("messages.json"), MESSAGES);
        Cli.Run r = ok("memory", "add", "--user", "ana", "--agent", "helper", "--raw", messages.toString());
        assertThat(r.out()).contains("stored  archival-").contains("3 stored, 0 merged, 0 failed.");
        assertThat(ok("archival", "list", "--user", "ana", "--agent", "helper").out()).contains("I am vegetarian.");
        assertThat(ok("notes", "list", "--user", "ana").out()).isBlank();
    }

    @Test
    void badInputIsRefusedAndStoresNothing() throws Exception {
        Path bad = Files.writeString(work.resolve("bad.json"), "[{\"role\": \"user\"}]");
        oneLineError(Cli.run(home, "memory", "add", "--user", "ana", "--raw", bad.toString()), 1, "message 0");
        Path empty = Files.writeString(work.resolve("empty.json"), "[]");
        oneLineError(Cli.run(home, "memory", "add", "--user", "ana", "--raw", empty.toString()), 1, "no messages");
        Path messages = Files.writeString(work.resolve("messages.json"), MESSAGES);
        oneLineError(Cli.run(home, "memory", "add", "--user", "ana", messages.toString()), 1, "No model is configured");
        oneLineError(Cli.run(home, "memory", "add", "--user", "ana", "--agent", "ghost", "--raw", messages.toString()), 1,
                "no agent named 'ghost'");
        assertThat(Cli.run(home, "memory", "add", "--user", "ana", "--raw", work.resolve("missing.json").toString()).exit())
                .isEqualTo(2);
        assertThat(ok("notes", "list", "--user", "ana").out()).isBlank();
    }

    @Test
    void jobsARunThatStoppedLeftUnfinishedAreRunAgainOrFailedAtTheNextAddAndALiveOnesAreLeftAlone() throws Exception {
        String raw = "{\"messages\": [{\"role\": \"user\", \"content\": \"I like green tea.\"}], \"raw\": true, "
                + "\"target\": \"NOTE\", \"similarity\": 0.85}";
        Files.createDirectories(home);
        Clock anHourAgo = Clock.fixed(Instant.now().minus(Duration.ofHours(1)), ZoneOffset.UTC);
        String running;
        String tired;
        try (MemoryStore store = MemoryStore.sqlite(SqliteOptions.builder(home.resolve("memory.db")).clock(anHourAgo).build())) {
            // as a killed 'engram memory add' leaves them: one running, one interrupted as often as a job may run
            running = store.jobs().start("ben", store.jobs().create("ben", MemoryManager.KIND, raw).id()).id();
            tired = store.jobs().create("ana", MemoryManager.KIND, raw).id();
            store.jobs().start("ana", tired);
            store.jobs().start("ana", tired);
        }
        String alive;
        try (MemoryStore store = MemoryStore.sqlite(home.resolve("memory.db"))) {
            alive = store.jobs().create("cy", MemoryManager.KIND, raw).id(); // its owner may still run it
        }
        Path messages = Files.writeString(work.resolve("messages.json"), MESSAGES);

        Cli.Run r = ok("memory", "add", "--user", "ana", "--raw", messages.toString());

        assertThat(r.out()).contains("Job " + running + ", left unfinished by an earlier run that stopped, ran again: 1 stored, "
                        + "0 merged, 0 failed.")
                .contains("Job " + tired + ", left unfinished by an earlier run that stopped, failed: the job was interrupted 2 "
                        + "times (the process stopped while it ran); add the messages again.")
                .contains("3 stored, 0 merged, 0 failed.").doesNotContain(alive);
        assertThat(ok("notes", "list", "--user", "ben").out()).contains("I like green tea.");
        assertThat(ok("notes", "list", "--user", "cy").out()).isBlank();
        try (MemoryStore store = MemoryStore.sqlite(home.resolve("memory.db"))) {
            assertThat(store.jobs().unfinished()).extracting(Job::id).containsExactly(alive);
            assertThat(store.jobs().get("ben", running).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
            assertThat(store.jobs().get("ana", tired).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
        }
    }
}

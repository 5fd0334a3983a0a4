package dev.engram.memory.sqlite;

import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.WriterChild;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM writes and acknowledges each write it has committed; it is killed with SIGKILL at a
 * random moment, 20 times over the same file. After every kill the file is reopened: every
 * acknowledged write must be there, and SQLite's integrity check must say ok.
 */
class DurabilityTest {
    private static final int KILLS = 20;

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedWriteSurvivesSigkill() throws Exception {
        Path file = dir.resolve("durable.db");
        Scope scope = Scope.of("ana", "helper");
        Random random = new Random(7);
        List<String> acked = Collections.synchronizedList(new ArrayList<>());
        int totalAcked = 0;
        for (int run = 0; run < KILLS; run++) {
            acked.clear();
            // A child that starts quickly (C1 only, serial GC): how it is compiled or collected does not change
            // what a SIGKILL leaves on disk. It is killed even when an assertion fails first, and it halts by itself
            // if this JVM dies.
            try (WriterChild writer = WriterChild.start(DurabilityChild.class,
                    List.of("--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                    file.toString(), "r" + run)) {
                Process child = writer.process();
                CountDownLatch firstAck = new CountDownLatch(1);
                Thread reader = Thread.ofPlatform().start(() -> {
                    try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            if (!line.equals("READY")) {
                                acked.add(line);
                                firstAck.countDown();
                            }
                        }
                    } catch (IOException e) {
                        // The pipe breaks when the child is killed.
                    }
                });
                // Kill at a random moment while the child is writing.
                assertThat(firstAck.await(60, TimeUnit.SECONDS)).as("child %d started writing", run).isTrue();
                Thread.sleep(random.nextInt(400));
                child.destroyForcibly(); // SIGKILL on Linux and macOS
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                reader.join(10_000);
            }
            assertThat(acked).as("writes acknowledged in run %d", run).isNotEmpty();
            totalAcked += acked.size();

            try (MemoryStore store = MemoryStore.sqlite(file)) {
            SqliteBackend backend = (SqliteBackend) store.backend();
                assertThat(backend.integrityCheck()).isEqualTo("ok");
                String log = store.blocks().get(scope, "log").orElseThrow().value();
                for (String ack : List.copyOf(acked)) {
                    String[] parts = ack.split(" ", 2);
                    switch (parts[0]) {
                        case "block" -> assertThat(log).as(ack).contains("[" + parts[1] + "]");
                        case "archival" -> assertThat(store.archival().get(scope, parts[1])).as(ack).isPresent();
                        case "note" -> assertThat(store.notes().get("ana", parts[1])).as(ack).isPresent();
                        case "message" -> assertThat(store.messages().get(scope, Long.parseLong(parts[1]))).as(ack).isPresent();
                        default -> throw new AssertionError("unexpected line from child: " + ack);
                    }
                }
            }
        }
        assertThat(totalAcked).isGreaterThan(KILLS);
        System.out.println("durability: " + KILLS + " SIGKILLs, " + totalAcked + " acknowledged writes, all present");
    }
}

package dev.engram.memory.lucene;

import dev.engram.memory.Embedder;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.WordHashEmbedder;
import dev.engram.memory.WriterChild;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM writes to the store while its background indexer follows the change log; it is killed
 * with SIGKILL at a random moment, 20 times. After each kill the index is reopened: it catches up to
 * SQLite, every acknowledged entry is searchable, and the index holds exactly the store's entries,
 * nothing more. (An entry whose delete was announced may or may not exist: the kill can fall between
 * the delete's commit and its acknowledgement.)
 *
 * <p>Parent and child embed with {@link WordHashEmbedder}, not the ONNX model: what is under test is that the index
 * follows the store's change log across kills, which does not depend on what the vectors mean, and loading the
 * model in each of the 20 children cost most of this test's time.
 */
class IndexDurabilityTest {
    private static final int KILLS = 20;

    @TempDir
    Path dir;

    @Test
    void theIndexCatchesUpAfterSigkillAndHoldsNothingTheStoreLacks() throws Exception {
        Scope scope = Scope.of("ana", "helper");
        Random random = new Random(11);
        Map<String, String> live = new HashMap<>();
        int acknowledged = 0;
        try (Embedder embedder = new WordHashEmbedder()) {
            for (int run = 0; run < KILLS; run++) {
                List<String> lines = Collections.synchronizedList(new ArrayList<>());
                // A child that starts quickly (C1 only, serial GC): how it is compiled or collected does not change
                // what a SIGKILL leaves in the store and the index. It is killed even when an assertion fails first,
                // and it halts by itself if this JVM dies.
                try (WriterChild writer = WriterChild.start(IndexDurabilityChild.class,
                        List.of("--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                                "--add-modules", "jdk.incubator.vector"),
                        dir.toString(), "r" + run)) {
                    Process child = writer.process();
                    CountDownLatch firstWrite = new CountDownLatch(1);
                    Thread reader = Thread.ofPlatform().start(() -> {
                        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                            String line;
                            while ((line = in.readLine()) != null) {
                                if (!line.startsWith("READY")) {
                                    lines.add(line);
                                    firstWrite.countDown();
                                }
                            }
                        } catch (IOException e) {
                            // broken by the kill
                        }
                    });
                    assertThat(firstWrite.await(90, TimeUnit.SECONDS)).as("child %d started writing", run).isTrue();
                    Thread.sleep(random.nextInt(300));
                    child.destroyForcibly();
                    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                    reader.join(10_000);
                }
                for (String line : List.copyOf(lines)) {
                    String[] parts = line.split(" ");
                    if (parts[0].equals("deleting") || parts[0].equals("deleted")) {
                        // An announced delete may have committed even if its acknowledgement never came.
                        live.remove(parts[1]);
                    } else {
                        live.put(parts[0], parts[1]);
                        acknowledged++;
                    }
                }

                try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
                        LuceneMemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                                .backgroundInterval(Duration.ZERO).build()) {
                    assertThat(search.indexedSeq()).as("a committed index never runs ahead of the store")
                            .isLessThanOrEqualTo(store.changes().lastSeq());
                    search.awaitIndexed();
                    long entries = store.archival().count(scope);
                    assertThat((long) search.documentCount()).as("index documents after run %d", run).isEqualTo(entries);
                    for (Map.Entry<String, String> e : live.entrySet()) {
                        assertThat(store.archival().get(scope, e.getKey())).as("store has %s", e.getKey()).isPresent();
                    }
                    // Probe a sample of acknowledged entries by their unique token.
                    List<Map.Entry<String, String>> sample = new ArrayList<>(live.entrySet());
                    Collections.shuffle(sample, random);
                    for (Map.Entry<String, String> e : sample.subList(0, Math.min(30, sample.size()))) {
                        List<SearchHit> hits = search.search(SearchRequest.builder(scope, e.getValue()).mode(SearchMode.BM25)
                                .domains(SearchDomain.ARCHIVAL).build());
                        assertThat(hits).extracting(SearchHit::id).as(e.getValue()).containsExactly(e.getKey());
                    }
                }
            }
        }
        assertThat(acknowledged).isGreaterThan(KILLS);
        System.out.println("index durability: " + KILLS + " SIGKILLs, " + acknowledged + " acknowledged inserts, "
                + live.size() + " live entries, all indexed exactly");
    }
}

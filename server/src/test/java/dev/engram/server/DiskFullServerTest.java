package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.SmallDisk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk under the server's SQLite store and index fills up: messages and other writes are answered 507
 * Insufficient Storage with a sentence saying so (no exception names), reads keep working, nothing acknowledged is
 * lost, and the same server accepts writes again once space returns. Runs as root on a 4 MB tmpfs filled with a
 * file (skipped otherwise).
 */
class DiskFullServerTest {
    @TempDir
    Path tmp;

    @Test
    void aFullDiskIsAnswered507ClearlyAndWritesResumeWhenSpaceReturns() throws Exception {
        try (SmallDisk disk = SmallDisk.mount(tmp.resolve("disk"), 4); ServerFixture f = new ServerFixture(disk.dir())) {
            String agent = f.agent(f.ana, "helper");
            String messages = "/v1/agents/" + agent + "/messages";
            assertThat(f.post(f.ana, messages, f.userMessage("before the disk filled")).status()).isEqualTo(200);
            Path filler = disk.fill("filler", 0);

            // A turn: the messages that were answered 200 are stored; then a 507.
            List<String> acknowledged = new ArrayList<>(List.of("before the disk filled"));
            ServerFixture.Response full = null;
            for (int i = 0; i < 200 && full == null; i++) {
                ServerFixture.Response r = f.post(f.ana, messages, f.userMessage("message " + i));
                if (r.status() == 200) {
                    acknowledged.add("message " + i);
                } else {
                    full = r;
                }
            }
            assertThat(full).as("a message was refused within 200").isNotNull();
            assertThat(full.status()).as(full.text()).isEqualTo(507);
            assertThat(full.detail()).contains("The server's disk is full", "frees space").doesNotContain("Exception", "SQL", "org.",
                    "java.", disk.dir().toString());

            // Another write: refused the same way (a few may still fit in space the store had reserved).
            List<String> archived = new ArrayList<>();
            ServerFixture.Response refused = null;
            for (int i = 0; i < 200 && refused == null; i++) {
                ServerFixture.Response r = f.post(f.ana, "/v1/agents/" + agent + "/archival-memory", obj("text", "note " + i));
                if (r.status() == 200) {
                    archived.add("note " + i);
                } else {
                    refused = r;
                }
            }
            assertThat(refused).as("an archival insert was refused within 200").isNotNull();
            assertThat(refused.status()).as(refused.text()).isEqualTo(507);
            assertThat(refused.detail()).contains("The server's disk is full", "nothing of it was stored");

            // Reads work; everything acknowledged is there.
            assertThat(f.get(f.ana, messages).status()).isEqualTo(200);
            Scope scope = Scope.of("ana", agent);
            Set<String> stored = f.store.messages().list(scope, MessageQuery.all()).stream().filter(m -> m.role() == MessageRole.USER)
                    .map(ConversationMessage::content).collect(Collectors.toSet());
            assertThat(stored).containsAll(acknowledged);
            assertThat(f.store.archival().list(scope, 0, 1_000).stream().map(ArchivalEntry::content)).containsAll(archived);

            // Space returns: the same server writes again.
            Files.delete(filler);
            assertThat(f.post(f.ana, messages, f.userMessage("after the disk was freed")).status()).isEqualTo(200);
            assertThat(f.post(f.ana, "/v1/agents/" + agent + "/archival-memory", obj("text", "after")).status()).isEqualTo(200);
            assertThat(f.store.messages().list(scope, MessageQuery.all()).stream().map(ConversationMessage::content))
                    .contains("after the disk was freed");
        }
    }
}

package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@link MemoryFileRoutes}: an agent's blocks as Letta's memory files, their versions as the files' commits. */
class MemoryFileEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "filer", "memory_blocks", List.of(
                obj("label", "human", "value", "Ana.", "description", "Who the user is"),
                obj("label", "notes/today", "value", "Buy milk.", "read_only", true))));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        agent = r.json().path("id").asString();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private String base() {
        return "/v1/agents/" + agent + "/memory-files/";
    }

    private static List<String> entries(JsonNode listing) {
        return listing.path("entries").valueStream().map(e -> e.path("type").asString() + ":" + e.path("name").asString()).toList();
    }

    @Test
    void blocksAreFilesAndLabelsWithSlashesAreDirectories() {
        ServerFixture.Response root = fx.get(fx.ana, base() + "directory");
        assertThat(root.status()).as(root.text()).isEqualTo(200);
        assertThat(entries(root.json())).containsExactly("directory:notes", "file:human.md");
        assertThat(root.json().path("depth").asInt()).isEqualTo(1);
        assertThat(entries(fx.get(fx.ana, base() + "directory?depth=2").json()))
                .containsExactly("directory:notes", "file:human.md", "file:notes/today.md");
        assertThat(entries(fx.get(fx.ana, base() + "directory?path=notes").json())).containsExactly("file:today.md");
        assertThat(fx.get(fx.ana, base() + "directory?path=nowhere").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, base() + "directory?ref=abc").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, base() + "directory?depth=0").status()).isEqualTo(422);
        assertThat(fx.get(fx.ben, base() + "directory").status()).isEqualTo(404);
    }

    @Test
    void aFilesCommitsAreItsBlocksVersionsAndEachIsReadable() {
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/core-memory/blocks/human", obj("value", "Ana Lima.")).status())
                .isEqualTo(200);
        ServerFixture.Response history = fx.get(fx.ana, base() + "history?file_path=human.md");
        assertThat(history.status()).as(history.text()).isEqualTo(200);
        JsonNode commits = history.json().path("commits");
        assertThat(commits).hasSize(2);
        String older = commits.path(1).path("sha").asString();
        assertThat(commits.path(0).path("timestamp").asString()).isNotEmpty();
        assertThat(fx.get(fx.ana, base() + "history?file_path=human.md&limit=1").json().path("commits")).hasSize(1);

        JsonNode head = fx.get(fx.ana, base() + "content?file_path=human.md").json();
        assertThat(head.path("ref").asString()).isEqualTo("HEAD");
        assertThat(head.path("content").asString()).isEqualTo("---\ndescription: \"Who the user is\"\n---\nAna Lima.");
        assertThat(fx.get(fx.ana, base() + "content?file_path=human.md&ref=" + older).json().path("content").asString())
                .endsWith("---\nAna.");
        assertThat(fx.get(fx.ana, base() + "content?file_path=notes/today.md").json().path("content").asString())
                .contains("read_only: true\n").endsWith("Buy milk.");

        assertThat(fx.get(fx.ana, base() + "content?file_path=human.md&ref=999").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, base() + "content?file_path=human.txt").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, base() + "content?file_path=ghost.md").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, base() + "content").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, base() + "history").status()).isEqualTo(422);
        assertThat(fx.get(fx.ben, base() + "content?file_path=human.md").status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, base() + "history?file_path=human.md").status()).isEqualTo(404);
    }
}

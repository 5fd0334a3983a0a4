package dev.engram.cli;

import static dev.engram.cli.Cli.oneLineError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Embedder;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a command that searches can refuse from the store alone (an agent that does not exist, a user without folders, a
 * chat without a model) it refuses at once, with its message and exit code, and the embedding model is never asked for:
 * the command does not wait seconds for a model it will not use. A command that goes on asks for it.
 */
class RefusalsBeforeTheModelTest {
    @TempDir
    Path home;

    /** The homes whose embedding model was asked for; the model itself is one that is unavailable (search on BM25). */
    private final List<Path> asked = new CopyOnWriteArrayList<>();
    private final Function<Path, Embedder> models = h -> {
        asked.add(h);
        return Embedder.unavailable("none", 4, "not loaded in this test");
    };

    @Test
    void searchingAnAgentThatDoesNotExistIsRefusedWithoutAskingForTheModel() {
        Cli.Run r = Cli.run(home, models, "search", "octopus", "--agent", "nobody", "--user", "ana");
        oneLineError(r, 1, "User 'ana' has no agent named 'nobody'; list them with 'engram agent list --user ana'");
        assertThat(asked).isEmpty();
    }

    @Test
    void searchingTheFilesOfAUserWithoutFoldersIsRefusedWithoutAskingForTheModel() {
        Cli.Run r = Cli.run(home, models, "search", "valve", "--domain", "files", "--user", "ben");
        oneLineError(r, 2, "User 'ben' has no folders to search; create one with 'engram folder create NAME'");
        assertThat(asked).isEmpty();
    }

    @Test
    void chattingWithANewAgentWithoutAModelIsRefusedWithoutAskingForTheModel() {
        Cli.Run r = Cli.run(home, models, "chat", "--agent", "newcomer", "--user", "ana");
        oneLineError(r, 1, "No model is configured: pass --model");
        assertThat(asked).isEmpty();
    }

    @Test
    void aSearchThatRunsAsksForTheModelOnce() {
        Cli.ok(home, "agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini");
        Cli.Run r = Cli.run(home, models, "search", "octopus", "--agent", "helper", "--user", "ana");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("No results.");
        assertThat(asked).containsExactly(home.toAbsolutePath());
    }
}

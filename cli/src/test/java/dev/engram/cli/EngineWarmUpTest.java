package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The warm-up opens the index and the embedding model in the background, and never outlives or blocks the engine. */
class EngineWarmUpTest {
    @TempDir
    Path home;

    @Test
    void theWarmUpOpensTheSearchInTheBackgroundWhileTheStoreIsUsable() throws Exception {
        try (Engine engine = new Engine(home)) {
            engine.store().archival().insert(Scope.of("ana", "helper"), NewArchivalEntry.of("Maya studies octopus migration"));
            assertThat(home.resolve("index")).as("nothing opened the index yet").doesNotExist();
            engine.warmUp();
            engine.warmUp(); // once is enough: a second call starts nothing more
            engine.awaitWarmUp();
            assertThat(home.resolve("index")).isDirectory();
            List<SearchHit> hits = engine.search().search(SearchRequest.builder(Scope.of("ana", "helper"), "octopus")
                    .domains(SearchDomain.ARCHIVAL).build());
            assertThat(hits).extracting(SearchHit::text).containsExactly("Maya studies octopus migration");
            assertThat(hits.getFirst().vector()).as("the embedding model answered").isPresent();
        }
    }

    @Test
    void openingTheSearchInTheBackgroundOpensTheIndexAndModelAndTheSearchThatFollowsFindsIt() throws Exception {
        try (Engine engine = new Engine(home)) {
            engine.store().archival().insert(Scope.of("ana", "helper"), NewArchivalEntry.of("Maya studies octopus migration"));
            assertThat(engine.openSearchInBackground()).as("the same stage as the warm-up's").isSameAs(engine.warmUp(() -> { }));
            engine.awaitWarmUp();
            assertThat(home.resolve("index")).isDirectory();
            List<SearchHit> hits = engine.search().search(SearchRequest.builder(Scope.of("ana", "helper"), "octopus")
                    .domains(SearchDomain.ARCHIVAL).build());
            assertThat(hits).extracting(SearchHit::text).containsExactly("Maya studies octopus migration");
            assertThat(hits.getFirst().vector()).as("the embedding model answered").isPresent();
        }
    }

    @Test
    void closingWhileTheWarmUpRunsReleasesTheIndexForTheNextProcess() {
        Engine engine = new Engine(home);
        engine.store();
        engine.warmUp();
        engine.close();
        assertThatThrownBy(engine::search).isInstanceOf(IllegalStateException.class).hasMessageContaining("was closed");
        try (Engine next = new Engine(home)) {
            assertThat(next.search().search(SearchRequest.builder(Scope.of("ana", "helper"), "octopus").build())).isEmpty();
        }
        assertThat(Files.isDirectory(home.resolve("index"))).isTrue();
    }
}

package dev.engram.memory.lucene;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.WordHashEmbedder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The entity signal's names, and its weight's bounds. */
class MentionsTest {
    @Test
    void namesAreTheCapitalisedWordsThatAreNotCommonWords() {
        assertThat(Mentions.of("When did Caroline go to the LGBTQ support group in São Paulo?"))
                .isEqualTo("Caroline LGBTQ São Paulo");
        assertThat(Mentions.of("What I said: The cat sleeps. Yes, it's true")).isEmpty();
        assertThat(Mentions.of("no names here, only words")).isEmpty();
    }

    @Test
    void aNameWeightOutOfRangeIsRefusedAndTheBuilderKeepsItsDefault() {
        try (MemoryStore store = MemoryStore.inMemory()) {
            LuceneMemorySearch.Builder builder = LuceneMemorySearch.builder(store, new WordHashEmbedder())
                    .backgroundInterval(Duration.ZERO);
            assertThatThrownBy(() -> builder.nameWeight(-0.1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("name weight must be between 0 and 10, got -0.1");
            assertThatThrownBy(() -> builder.nameWeight(Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("between 0 and 10");
            assertThatThrownBy(() -> builder.nameWeight(11)).isInstanceOf(IllegalArgumentException.class);
            Scope ana = Scope.of("ana", "helper");
            store.messages().appendAll(ana, List.of(NewMessage.user("s", "ana moved to lisbon"),
                    NewMessage.user("s", "Ana moved to Lisbon")));
            try (MemorySearch search = builder.build()) {
                // The default weight still applies: the message naming Lisbon comes first.
                assertThat(search.search(SearchRequest.builder(ana, "Where is Lisbon?").mode(SearchMode.BM25)
                        .domains(SearchDomain.CONVERSATIONS).build()))
                        .extracting(h -> h.text()).containsExactly("Ana moved to Lisbon", "ana moved to lisbon");
            }
        }
    }
}

package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Texts over the store's limit, and queries over the search limit, are refused and change nothing. */
class MemoryLimitsTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private final MemoryStore store = MemoryStore.over(new InMemoryBackend(), Clock.systemUTC(), new MemoryLimits(100));

    private void refused(Runnable write, String message) {
        long seq = store.changes().lastSeq();
        assertThatThrownBy(write::run).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message);
        assertThat(store.changes().lastSeq()).isEqualTo(seq);
    }

    @Test
    void everyKindOfTextOverTheLimitIsRefused() {
        String big = "x".repeat(101);
        refused(() -> store.notes().save("ana", big), "note content is 101 characters long; this store accepts at most 100");
        Note n = store.notes().save("ana", "small");
        refused(() -> store.notes().update("ana", n.id(), big), "note content is 101 characters long");
        refused(() -> store.archival().insert(ANA, NewArchivalEntry.of(big)), "archival content is 101 characters long");
        store.archival().insert(ANA, NewArchivalEntry.labelled("log", "x".repeat(90), List.of()));
        refused(() -> store.archival().append(ANA, "log", "y".repeat(11)),
                "archival entry 'log' with the text appended is 101 characters long");
        refused(() -> store.messages().append(ANA, NewMessage.user("s", big)), "message content is 101 characters long");
        refused(() -> store.agents().create(ANA, "Helper", "{\"p\":\"" + big + "\"}"), "agent definition is 109 characters long");
        assertThat(store.notes().get("ana", n.id()).orElseThrow().content()).isEqualTo("small");
        assertThat(store.messages().count(ANA)).isZero();
        assertThatThrownBy(() -> new MemoryLimits(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(MemoryLimits.defaults().maxTextChars()).isEqualTo(1_000_000);
    }

    @Test
    void aBlockLimitAboveTheLargestTextIsRefusedOnEveryPathAndNothingIsStored() {
        long seq = store.changes().lastSeq();
        assertThatThrownBy(() -> store.blocks().create(ANA, NewBlock.builder("huge").limit(20_000_000).build()))
                .isInstanceOf(LimitExceededException.class)
                .hasMessage("Block 'huge' asks for a limit of 20000000 characters; this store allows at most 100 per block "
                        + "(MemoryLimits). Nothing was stored: ask for a limit of at most 100.");
        assertThat(store.blocks().list(ANA)).isEmpty();
        assertThat(store.changes().lastSeq()).isEqualTo(seq);

        Block ok = store.blocks().create(ANA, NewBlock.builder("notes").value("short").limit(100).build());
        seq = store.changes().lastSeq();
        assertThatThrownBy(() -> store.blocks().update(ANA, "notes", BlockUpdate.of(ok).withLimit(101), BlockStore.ANY_VERSION))
                .isInstanceOf(LimitExceededException.class).hasMessageContaining("at most 100 per block");
        store.archival().insert(ANA, NewArchivalEntry.labelled("fact", "a fact", List.of()));
        seq = store.changes().lastSeq();
        assertThatThrownBy(() -> store.blocks().load(ANA, "fact", "loaded", 1_000))
                .isInstanceOf(LimitExceededException.class).hasMessageContaining("'loaded' asks for a limit of 1000");
        assertThat(store.blocks().get(ANA, "notes").orElseThrow()).isEqualTo(ok);
        assertThat(store.blocks().get(ANA, "loaded")).isEmpty();
        assertThat(store.changes().lastSeq()).isEqualTo(seq);
        // a limit at the largest is fine, and an update that keeps the limit is not checked again
        assertThat(store.blocks().update(ANA, "notes", BlockUpdate.of(ok).withValue("longer"), BlockStore.ANY_VERSION).value())
                .isEqualTo("longer");
    }

    @Test
    void aQueryOverTheSearchLimitIsRefused() {
        assertThatThrownBy(() -> SearchRequest.builder(ANA, "q".repeat(SearchRequest.MAX_QUERY_CHARS + 1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the search query is 10001 characters long; the most is 10000: search for the few words that matter");
    }
}

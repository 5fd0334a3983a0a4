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
    void aQueryOverTheSearchLimitIsRefused() {
        assertThatThrownBy(() -> SearchRequest.builder(ANA, "q".repeat(SearchRequest.MAX_QUERY_CHARS + 1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the search query is 10001 characters long; the most is 10000: search for the few words that matter");
    }
}

package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every backend does with canvas artefacts: every write a new version, earlier versions kept, each agent's (and
 * each user's) apart, the limits refused with nothing stored. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class CanvasConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope BEN = Scope.of("ben", "helper");

    /** The store under test, fresh for each test. */
    protected abstract MemoryStore store();

    @Test
    void everyWriteIsANewVersionAndEarlierOnesAreKept() {
        MemoryStore store = store();
        CanvasArtefact first = store.canvases().write(ANA, "chart", "Sales", "<p>v1</p>");
        CanvasArtefact second = store.canvases().write(ANA, "chart", "Sales, again", "<p>v2</p>");
        CanvasArtefact other = store.canvases().write(ANA, "about", "", "<p>about ünïcode ✓</p>");

        assertThat(first.version()).isEqualTo(1);
        assertThat(second.version()).isEqualTo(2);
        assertThat(store.canvases().latest(ANA, "chart")).contains(second);
        assertThat(store.canvases().get(ANA, "chart", 1)).contains(first);
        assertThat(store.canvases().get(ANA, "chart", 3)).isEmpty();
        assertThat(store.canvases().versions(ANA, "chart")).containsExactly(first, second);
        assertThat(store.canvases().list(ANA)).containsExactly(other, second);
        assertThat(other.bytes()).isEqualTo("<p>about ünïcode ✓</p>".getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }

    @Test
    void anotherAgentOrUserSeesNone() {
        MemoryStore store = store();
        store.canvases().write(ANA, "chart", "Sales", "<p>ana</p>");
        assertThat(store.canvases().latest(ANA_COACH, "chart")).isEmpty();
        assertThat(store.canvases().latest(BEN, "chart")).isEmpty();
        assertThat(store.canvases().list(BEN)).isEmpty();
        assertThat(store.canvases().versions(BEN, "chart")).isEmpty();
        CanvasArtefact bens = store.canvases().write(BEN, "chart", "", "<p>ben</p>");
        assertThat(bens.version()).isEqualTo(1);
        assertThat(store.canvases().latest(ANA, "chart").orElseThrow().content()).isEqualTo("<p>ana</p>");
    }

    @Test
    void badNamesEmptyOrOversizedContentAreRefusedAndNothingIsStored() {
        MemoryStore store = store();
        store.canvases().write(ANA, "chart", "", "<p>v1</p>");
        assertThatThrownBy(() -> store.canvases().write(ANA, "../etc", "", "<p>x</p>"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("canvas name '../etc' is not valid");
        assertThatThrownBy(() -> store.canvases().write(ANA, "a b", "", "<p>x</p>")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.canvases().write(ANA, "chart", "", "  "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        String big = "x".repeat(CanvasStore.MAX_BYTES + 1);
        assertThatThrownBy(() -> store.canvases().write(ANA, "chart", "", big))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most " + CanvasStore.MAX_BYTES + " bytes");
        assertThatThrownBy(() -> store.canvases().write(ANA, "chart", "t".repeat(CanvasStore.MAX_TITLE + 1), "<p/>"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("title");
        assertThat(store.canvases().versions(ANA, "chart")).hasSize(1);
        assertThat(store.canvases().list(ANA)).extracting(CanvasArtefact::name).containsExactly("chart");
        assertThat(store.canvases().write(ANA, "chart", "", "x".repeat(CanvasStore.MAX_BYTES)).version()).isEqualTo(2);
    }

    @Test
    void anAgentKeepsAtMostTheLimitOfNames() {
        MemoryStore store = store();
        for (int i = 0; i < CanvasStore.MAX_NAMES; i++) {
            store.canvases().write(ANA, "n" + i, "", "<p/>");
        }
        assertThatThrownBy(() -> store.canvases().write(ANA, "one-more", "", "<p/>"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already keeps " + CanvasStore.MAX_NAMES);
        assertThat(store.canvases().latest(ANA, "one-more")).isEmpty();
        assertThat(store.canvases().write(ANA, "n0", "", "<p>again</p>").version()).isEqualTo(2);
        List<CanvasArtefact> all = store.canvases().list(ANA);
        assertThat(all).hasSize(CanvasStore.MAX_NAMES);
    }
}

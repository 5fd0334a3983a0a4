package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FusionTest {
    @Test
    void specsParseAndPrintBack() {
        assertThat(Fusion.parse("rrf")).isEqualTo(Fusion.rrf());
        assertThat(Fusion.parse(" RRF:20 ")).isEqualTo(Fusion.rrf(20));
        assertThat(Fusion.parse("weighted:0.6,0.4")).isEqualTo(Fusion.weighted(0.6, 0.4));
        assertThat(Fusion.parse("weighted:0.4,0.6; conversations:0.6,0.4"))
                .isEqualTo(Fusion.weighted(0.4, 0.6).forConversations(0.6, 0.4));
        for (Fusion f : new Fusion[] {Fusion.rrf(), Fusion.rrf(7), Fusion.weighted(0.3, 0.7), Fusion.defaults()}) {
            assertThat(Fusion.parse(f.spec())).isEqualTo(f);
        }
        assertThat(Fusion.defaults().spec()).isEqualTo(Fusion.DEFAULT_SPEC);
        assertThat(SearchRequest.builder(Scope.of("u", "a"), "q").build().fusion()).isEqualTo(Fusion.defaults());
    }

    @Test
    void conversationMessagesMayBeWeighedApart() {
        Fusion d = Fusion.defaults();
        assertThat(d.ftsWeight(SearchDomain.ARCHIVAL)).isEqualTo(0.3);
        assertThat(d.vectorWeight(SearchDomain.NOTES)).isEqualTo(0.7);
        assertThat(d.ftsWeight(SearchDomain.CONVERSATIONS)).isEqualTo(0.5);
        assertThat(d.vectorWeight(SearchDomain.CONVERSATIONS)).isEqualTo(0.5);
        assertThat(Fusion.weighted(0.5, 0.5).spec()).isEqualTo("weighted:0.5,0.5");
        assertThatThrownBy(() -> Fusion.rrf().forConversations(1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fusion.weighted(1, 1).forConversations(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badSpecsNameTheFormsThatWork() {
        for (String bad : new String[] {"", "weighted", "weighted:0.6", "weighted:a,b", "rrf:x", "rrf:0", "weighted:-1,1", "max",
                "weighted:0.4,0.6;", "weighted:0.4,0.6;conversations:1", "weighted:0.4,0.6;people:1,1"}) {
            assertThatThrownBy(() -> Fusion.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> Fusion.parse("max")).hasMessageContaining("rrf, rrf:K, weighted:BM25,VECTOR");
        assertThatThrownBy(() -> Fusion.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }
}

package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MemoryFilterTest {
    private static Map<String, Object> item(String metadata) {
        return MemoryFilter.fields(Metadata.parse(metadata), Instant.parse("2026-03-01T00:00:00Z"), "ana", Optional.of("helper"));
    }

    @Test
    void mem0ShapedFiltersParseAndMatch() {
        MemoryFilter f = MemoryFilter.parse("{\"AND\": [{\"project\": \"apollo\"}, {\"priority\": {\"gte\": 2}}]}");
        assertThat(f.matches(item("{\"project\": \"apollo\", \"priority\": 2}"))).isTrue();
        assertThat(f.matches(item("{\"project\": \"apollo\", \"priority\": 1.5}"))).isFalse();
        assertThat(f.matches(item("{\"project\": \"apollo\"}"))).isFalse();
        assertThat(MemoryFilter.parse("{\"created_at\": {\"lt\": \"2026-04-01T00:00:00Z\"}}").matches(item("{}"))).isTrue();
        assertThat(MemoryFilter.parse("{\"NOT\": [{\"a\": 1}, {\"b\": 2}]}").matches(item("{\"b\": 2}"))).isFalse();
        assertThat(MemoryFilter.parse("{\"x\": null}").matches(item("{\"x\": null}"))).isTrue();
        assertThat(MemoryFilter.parse("{\"n\": {\"gt\": \"a\"}}").matches(item("{\"n\": 5}"))).isFalse();
        assertThat(MemoryFilter.of(Map.of("project", Map.of("in", java.util.List.of("apollo", "gemini")))))
                .isEqualTo(MemoryFilter.parse("{\"project\": {\"in\": [\"apollo\", \"gemini\"]}}"));
        assertThat(MemoryFilter.parse("{}").isEmpty()).isTrue();
        assertThat(MemoryFilter.parse(" ").isEmpty()).isTrue();
    }

    @Test
    void aBadFilterIsRefusedNamingTheOffendingPart() {
        assertThatThrownBy(() -> MemoryFilter.parse("{\"AND\": [{\"project\": \"apollo\"}, {\"priority\": {\"gtt\": 2}}]}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("filter part 'AND[1].priority.gtt' unknown operator 'gtt'; use one of eq, ne, in, nin, gt, gte, lt, "
                        + "lte, contains, icontains");
        assertThatThrownBy(() -> MemoryFilter.parse("{\"OR\": []}")).hasMessageContaining("'OR' must be a non-empty list");
        assertThatThrownBy(() -> MemoryFilter.parse("{\"a\": {\"in\": 3}}")).hasMessageContaining("'a.in' must be a list");
        assertThatThrownBy(() -> MemoryFilter.parse("{\"created_at\": {\"gt\": \"yesterday\"}}"))
                .hasMessageContaining("'created_at.gt' 'yesterday' is not an ISO-8601 time");
        assertThatThrownBy(() -> MemoryFilter.parse("{\"and\": [{\"a\": 1}]}")).hasMessageContaining("capitals");
        assertThatThrownBy(() -> MemoryFilter.parse("[1]")).hasMessageContaining("must be a JSON object");
        assertThatThrownBy(() -> MemoryFilter.parse("{\"a\": ")).hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> MemoryFilter.parse("{\"a\": {\"eq\": [1]}}")).hasMessageContaining("use in or nin");
        assertThatThrownBy(() -> MemoryFilter.parse("{\"a\": {\"icontains\": 3}}")).hasMessageContaining("takes a text");
        assertThatThrownBy(() -> MemoryFilter.parse("{\"AND\": [{}]}")).hasMessageContaining("'AND[0]' is an empty object");
    }

    @Test
    void metadataIsLimitedAndReservedNamesAreRefused() {
        assertThatThrownBy(() -> Metadata.parse("{\"a\": \"" + "x".repeat(Metadata.MAX_BYTES) + "\"}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the most is 8192");
        assertThatThrownBy(() -> Metadata.parse("{\"created_at\": 1}")).hasMessageContaining("'created_at' is reserved");
        assertThatThrownBy(() -> Metadata.parse("[1]")).hasMessageContaining("must be a JSON object");
        assertThatThrownBy(() -> Metadata.parse("null")).hasMessageContaining("must be a JSON object");
        assertThat(Metadata.parse("{\"b\": 1, \"a\": [true]}").json()).isEqualTo("{\"a\":[true],\"b\":1}");
        assertThat(Metadata.of(Map.of("p", 2L))).isEqualTo(Metadata.parse("{\"p\": 2}"));
    }
}

package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import org.junit.jupiter.api.Test;

class ToolCallAccumulatorTest {
    @Test
    void fragmentsAreJoinedPerIndexInOrder() {
        ToolCallAccumulator acc = new ToolCallAccumulator();
        acc.add(1, "b", "second", "{\"x\":");
        acc.add(0, "a", "first", "{\"text\": \"caf");
        acc.add(0, null, null, "\\u00e9 \\\"quoted\\\"\"}");
        acc.add(1, null, "", "1}");
        assertThat(acc.calls()).containsExactly(new ToolCall("a", "first", "{\"text\": \"caf\\u00e9 \\\"quoted\\\"\"}"),
                new ToolCall("b", "second", "{\"x\":1}"));
    }

    @Test
    void missingIdsAndArgumentsGetDefaults() {
        ToolCallAccumulator acc = new ToolCallAccumulator();
        assertThat(acc.isEmpty()).isTrue();
        acc.add(3, null, "ping", null);
        assertThat(acc.calls()).containsExactly(new ToolCall("call_3", "ping", "{}"));
    }

    @Test
    void invalidJsonIsKeptVerbatim() {
        ToolCallAccumulator acc = new ToolCallAccumulator();
        acc.add(0, "a", "t", "{\"unterminated");
        assertThat(acc.calls().get(0).arguments()).isEqualTo("{\"unterminated");
    }
}

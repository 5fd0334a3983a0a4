package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class TruncatorTest {
    @Test
    void textWithinTheBudgetIsUntouched() {
        Truncator.Cut cut = Truncator.cut("héllo", 256, Truncation.KEEP_HEAD);
        assertThat(cut.truncated()).isFalse();
        assertThat(cut.content()).isEqualTo("héllo");
        assertThat(cut.originalBytes()).isEqualTo(6);
    }

    @Test
    void textExactlyAtTheBudgetIsUntouched() {
        String text = "a".repeat(300);
        assertThat(Truncator.cut(text, 300, Truncation.KEEP_HEAD).truncated()).isFalse();
        assertThat(Truncator.cut(text + "b", 300, Truncation.KEEP_HEAD).truncated()).isTrue();
    }

    /** 2-, 3- and 4-byte characters, shifted so that every byte offset falls on the cut once. */
    @ParameterizedTest
    @ValueSource(strings = {"é", "€", "😀", "日本"})
    void multiByteCharactersAreNeverSplit(String ch) {
        for (int shift = 0; shift < 4; shift++) {
            String text = "a".repeat(shift) + ch.repeat(2_000);
            for (Truncation mode : Truncation.values()) {
                Truncator.Cut cut = Truncator.cut(text, 1_000, mode);
                byte[] bytes = cut.content().getBytes(StandardCharsets.UTF_8);
                assertThat(cut.truncated()).isTrue();
                assertThat(bytes.length).isLessThanOrEqualTo(1_000).isGreaterThan(900);
                assertThat(cut.content()).doesNotContain("\uFFFD");
                // Round-trips: the kept text is whole characters of the original.
                assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo(cut.content());
                String kept = cut.content().replace(Truncator.notice(cut.originalBytes()), "").strip();
                assertThat(text).contains(kept);
                assertThat(cut.originalBytes()).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
            }
        }
    }

    @Test
    void headKeepsTheStartAndEndsWithTheNotice() {
        Truncator.Cut cut = Truncator.cut("begin-" + "x".repeat(5_000) + "-finish", 500, Truncation.KEEP_HEAD);
        assertThat(cut.content()).startsWith("begin-").endsWith("\n[output truncated — original size: 5013 bytes]");
        assertThat(cut.content()).doesNotContain("finish");
    }

    @Test
    void tailKeepsTheEndAndStartsWithTheNotice() {
        Truncator.Cut cut = Truncator.cut("begin-" + "x".repeat(5_000) + "-finish", 500, Truncation.KEEP_TAIL);
        assertThat(cut.content()).startsWith("[output truncated — original size: 5013 bytes]\n").endsWith("-finish");
        assertThat(cut.content()).doesNotContain("begin");
    }
}

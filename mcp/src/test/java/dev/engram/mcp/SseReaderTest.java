package dev.engram.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.spec.McpTransportException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The event-stream rules the client relies on: fields, line ends, ids and retry kept across streams, bounds. */
class SseReaderTest {
    private static InputStream stream(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    private static List<SseReader.Event> all(SseReader reader) throws IOException {
        List<SseReader.Event> events = new ArrayList<>();
        for (Optional<SseReader.Event> e = reader.next(); e.isPresent(); e = reader.next()) {
            events.add(e.get());
        }
        return events;
    }

    @Test
    void fieldsLineEndsCommentsAndMultiLineDataAreReadAsTheStandardSays() throws IOException {
        SseReader reader = SseReader.of(stream(": a comment\r\nevent: note\rdata: one\ndata:two\r\n\r\n"
                + "id: 7\nretry: 250\ndata: {\"x\":1}\n\n" + "nonsense line\ndata: last\n\n" + "data: cut off"), 1000);
        assertThat(all(reader)).containsExactly(new SseReader.Event(Optional.empty(), "note", "one\ntwo"),
                new SseReader.Event(Optional.of("7"), "message", "{\"x\":1}"),
                new SseReader.Event(Optional.of("7"), "message", "last"));
        assertThat(reader.lastEventId()).contains("7");
        assertThat(reader.retryMillis()).hasValue(250);
    }

    @Test
    void aPrimingEventSetsTheIdAndRetryAndIsDispatchedEmptyAndBothOutliveTheStream() throws IOException {
        SseReader reader = SseReader.of(stream("id: e1\nretry: 500\ndata: \n\n"), 1000);
        assertThat(all(reader)).containsExactly(new SseReader.Event(Optional.of("e1"), "message", ""));
        reader.follow(stream("retry: soon\ndata: {}\n\n"));
        assertThat(all(reader)).containsExactly(new SseReader.Event(Optional.of("e1"), "message", "{}"));
        assertThat(reader.retryMillis()).as("a retry that is not a number is ignored").hasValue(500);
        assertThat(reader.lastEventId()).contains("e1");
    }

    @Test
    void aLineOrAnEventBeyondTheBoundIsAnErrorNotEndlessBuffering() {
        assertThatThrownBy(() -> all(SseReader.of(stream("data: " + "x".repeat(200) + "\n\n"), 100)))
                .isInstanceOf(McpTransportException.class).hasMessageContaining("SSE line longer than 100 characters");
        assertThatThrownBy(() -> all(SseReader.of(stream("data: " + "x".repeat(60) + "\ndata: " + "y".repeat(60)
                + "\n\n"), 100))).isInstanceOf(McpTransportException.class)
                .hasMessageContaining("SSE event larger than 100 characters");
    }
}

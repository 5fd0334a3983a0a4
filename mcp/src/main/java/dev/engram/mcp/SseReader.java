package dev.engram.mcp;

import io.modelcontextprotocol.spec.McpTransportException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads server-sent events as the WHATWG HTML standard interprets an event stream: fields {@code event}, {@code data},
 * {@code id} and {@code retry}, comments and unknown fields ignored, lines ended by CR, LF or CRLF, an event dispatched
 * at an empty line only when it has data. The last event id and the reconnection time ({@code retry}) outlive a stream:
 * {@link #follow} reads the next stream (a reconnection) with them. A line or an event's data longer than the bound is a
 * {@link McpTransportException}, so that a server cannot make the client buffer without end.
 */
final class SseReader {
    /** A dispatched event: its id (the last one the stream set, if any), its type ({@code message} when unnamed), data. */
    record Event(Optional<String> id, String type, String data) {
    }

    private final int maxChars;
    private Reader in;
    private boolean skipLineFeed;
    private String lastEventId;
    private long retryMillis = -1;

    private SseReader(InputStream stream, int maxChars) {
        this.maxChars = maxChars;
        follow(stream);
    }

    /** A reader of {@code stream} (UTF-8) whose lines and events may hold at most {@code maxChars} characters. */
    static SseReader of(InputStream stream, int maxChars) {
        return new SseReader(stream, maxChars);
    }

    /** Reads {@code stream} from now on, keeping the last event id and the reconnection time. */
    void follow(InputStream stream) {
        this.in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8));
        this.skipLineFeed = false;
    }

    /** The id of the last event that set one, to send as {@code Last-Event-ID} on reconnection. */
    Optional<String> lastEventId() {
        return Optional.ofNullable(lastEventId);
    }

    /** The reconnection time the server asked for with {@code retry:}, in milliseconds. */
    OptionalLong retryMillis() {
        return retryMillis < 0 ? OptionalLong.empty() : OptionalLong.of(retryMillis);
    }

    /**
     * The next event with data, or empty at the end of the stream (an event cut off by the end is dropped).
     *
     * @throws IOException           if the stream breaks
     * @throws McpTransportException if a line or an event is longer than the bound
     */
    Optional<Event> next() throws IOException {
        StringBuilder data = new StringBuilder();
        String type = "";
        boolean hasData = false;
        for (String line = line(); line != null; line = line()) {
            if (line.isEmpty()) {
                if (hasData) { // an event with an empty data line is dispatched, with empty data (a priming event)
                    data.setLength(data.length() - 1); // the last data line's line feed
                    return Optional.of(new Event(lastEventId(), type.isEmpty() ? "message" : type, data.toString()));
                }
                type = "";
                continue;
            }
            if (line.startsWith(":")) {
                continue;
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            switch (field) {
                case "event" -> type = value;
                case "data" -> {
                    if (data.length() + value.length() >= maxChars) {
                        throw new McpTransportException("The MCP server sent an SSE event larger than " + maxChars
                                + " characters; the stream was dropped.");
                    }
                    data.append(value).append('\n');
                    hasData = true;
                }
                case "id" -> {
                    if (value.indexOf('\0') < 0) {
                        lastEventId = value;
                    }
                }
                case "retry" -> {
                    if (!value.isEmpty() && value.length() < 12 && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
                        retryMillis = Long.parseLong(value);
                    }
                }
                default -> {
                    // unknown fields are ignored, as the standard says
                }
            }
        }
        return Optional.empty();
    }

    /** The next line without its end, or null at the end of the stream (a last line without an end is dropped). */
    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c == -1) {
                return null;
            }
            if (skipLineFeed) {
                skipLineFeed = false;
                if (c == '\n') {
                    continue;
                }
            }
            if (c == '\r' || c == '\n') {
                skipLineFeed = c == '\r';
                return line.toString();
            }
            if (line.length() >= maxChars) {
                throw new McpTransportException("The MCP server sent an SSE line longer than " + maxChars
                        + " characters; the stream was dropped.");
            }
            line.append((char) c);
        }
    }
}

package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The line filter in front of the MCP SDK on its own: how much of a long line it holds, what it passes on. */
class McpLineGuardTest {
    /** {@code bytes} of 'a', produced as read, never held. */
    private static InputStream padding(long bytes) {
        return new InputStream() {
            private long left = bytes;

            @Override
            public int read() {
                return left-- > 0 ? 'a' : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (left <= 0) {
                    return -1;
                }
                int n = (int) Math.min(len, left);
                java.util.Arrays.fill(b, off, off + n, (byte) 'a');
                left -= n;
                return n;
            }
        };
    }

    private static InputStream text(String s) {
        return new java.io.ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aLineFourTimesTheLimitIsAnsweredWithoutHoldingMoreThanTheLimitAndTheNextLinePasses() throws IOException {
        InputStream client = new SequenceInputStream(java.util.Collections.enumeration(List.of(
                text("{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"tools/list\",\"params\":{\"pad\":\""),
                padding(4L * McpLineGuard.MAX_LINE_BYTES), text("\"}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"))));
        ByteArrayOutputStream answers = new ByteArrayOutputStream();
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger ends = new AtomicInteger();
        McpLineGuard guard = new McpLineGuard(client, answers, answers,
                new JacksonMcpJsonMapper(JsonMapper.builder().build()), requests::incrementAndGet, ends::incrementAndGet);

        String passed = new String(guard.readAllBytes(), StandardCharsets.UTF_8);

        assertThat(passed).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        assertThat(requests).hasValue(1);
        assertThat(ends).hasValue(1);
        assertThat(guard.mostHeld()).isLessThanOrEqualTo(McpLineGuard.MAX_LINE_BYTES);
        JsonNode answer = Json.parse(answers.toString(StandardCharsets.UTF_8).strip());
        assertThat(answer.path("id").asString()).isEqualTo("big");
        assertThat(answer.at("/error/code").asInt()).isEqualTo(-32600);
        assertThat(answer.at("/error/message").asString()).contains("more than the " + McpLineGuard.MAX_LINE_BYTES + " bytes");
    }

    @Test
    void aLastLineWithoutItsNewlineReachesTheSdkBeforeTheEnd() throws IOException {
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger requestsAtEnd = new AtomicInteger(-1);
        ByteArrayOutputStream answers = new ByteArrayOutputStream();
        McpLineGuard guard = new McpLineGuard(text("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}"), answers, answers,
                new JacksonMcpJsonMapper(JsonMapper.builder().build()), requests::incrementAndGet,
                () -> requestsAtEnd.set(requests.get()));
        byte[] first = new byte[8192];
        int n = guard.read(first, 0, first.length);

        assertThat(new String(first, 0, n, StandardCharsets.UTF_8)).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
        assertThat(requestsAtEnd).as("the end has not run while the line is on its way").hasValue(-1);
        assertThat(guard.read(first, 0, first.length)).isEqualTo(-1);
        assertThat(requestsAtEnd).hasValue(1);
        assertThat(answers.size()).isZero();
    }
}

package dev.engram.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ToolException;
import dev.engram.mcp.ResumingHttpMcpServer.Mode;
import dev.engram.mcp.ResumingHttpMcpServer.Seen;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

/**
 * Engram's Streamable HTTP client transport against a scripted server ({@link ResumingHttpMcpServer}), through
 * {@link McpServer} as tools use it: a stream the server closes mid-call is resumed after the {@code retry} delay with
 * {@code Last-Event-ID}; a server that never resumes, refuses to, or sends garbage fails the call with an error that
 * says so, well before the call timeout. Timings are asserted as lower bounds only (the delay the client waited); the
 * {@code @Timeout} guards against a hang.
 */
@Timeout(120)
class ResumableHttpClientTransportTest {
    /** A call timeout far above what the tests take, so that an error seen is the transport's, not the timeout's. */
    private static final McpServerOptions OPTIONS = McpServerOptions.defaults().withConnectTimeout(Duration.ofSeconds(20))
            .withCallTimeout(Duration.ofSeconds(60));

    private static McpServer client(ResumingHttpMcpServer http) {
        return McpServer.of(McpServerSpec.streamableHttp("calc", http.url(), Map.of("X-Team", "docs")), OPTIONS);
    }

    @Test
    void aStreamClosedMidCallIsResumedAfterTheRetryDelayWithTheLastEventId() throws Exception {
        try (ResumingHttpMcpServer http = ResumingHttpMcpServer.start(Mode.RESUME, 500);
                McpServer server = client(http)) {
            server.listTools();
            assertThat(server.call("add", Map.of("a", 1, "b", 2))).isEqualTo("3.0");

            List<Seen> resumed = http.resumptions();
            assertThat(resumed).hasSize(1);
            Seen get = resumed.getFirst();
            assertThat(get.lastEventId()).contains("e1");
            assertThat(get.session()).contains(ResumingHttpMcpServer.SESSION);
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(get.nanos() - http.streamClosedNanos());
            assertThat(waitedMillis).as("the client waits the retry (500 ms) before reconnecting").isGreaterThanOrEqualTo(450);
        }
    }

    @Test
    void aJsonAnswerIsReadTheSessionIdGoesWithEveryLaterRequestAndTheSessionIsDeletedOnClose() throws Exception {
        ResumingHttpMcpServer http = ResumingHttpMcpServer.start(Mode.JSON, 500);
        try (http) {
            try (McpServer server = client(http)) {
                server.listTools();
                assertThat(server.call("add", Map.of("a", 2, "b", 5))).isEqualTo("7.0");
            }
            List<Seen> seen = http.seen();
            assertThat(seen.getFirst().rpcMethod()).isEqualTo("initialize");
            assertThat(seen.getFirst().session()).isEmpty();
            assertThat(seen.stream().skip(1).filter(s -> !s.method().equals("DELETE")))
                    .isNotEmpty().allSatisfy(s -> assertThat(s.session()).contains(ResumingHttpMcpServer.SESSION));
            assertThat(seen).extracting(Seen::rpcMethod).contains("notifications/initialized", "tools/list", "tools/call");
            for (int i = 0; i < 100 && http.seen().stream().noneMatch(s -> s.method().equals("DELETE")); i++) {
                Thread.sleep(100); // closing runs on its own thread
            }
            assertThat(http.seen()).filteredOn(s -> s.method().equals("DELETE")).singleElement()
                    .satisfies(s -> assertThat(s.session()).contains(ResumingHttpMcpServer.SESSION));
        }
    }

    @Test
    void reconnectionsThatBringNoAnswerFailTheCallClearlyAfterTheBoundedAttempts() throws Exception {
        try (ResumingHttpMcpServer http = ResumingHttpMcpServer.start(Mode.NEVER_RESUME, 100);
                McpServer server = client(http)) {
            server.listTools();
            assertThatThrownBy(() -> server.call("add", Map.of("a", 1, "b", 2))).isInstanceOf(ToolException.class)
                    .hasMessageContaining("MCP server 'calc' failed to run 'add'")
                    .hasMessageContaining("3 reconnection(s) in a row (GET with Last-Event-ID e1) brought no answer")
                    .hasMessageNotContaining("did not answer within");
            assertThat(http.resumptions()).hasSize(ResumableHttpClientTransport.MAX_RECONNECTS)
                    .allSatisfy(s -> assertThat(s.lastEventId()).contains("e1"));
        }
    }

    @Test
    void aServerThatRefusesToResumeFailsTheCallAtOnce() throws Exception {
        try (ResumingHttpMcpServer http = ResumingHttpMcpServer.start(Mode.REFUSE_RESUME, 100);
                McpServer server = client(http)) {
            server.listTools();
            assertThatThrownBy(() -> server.call("add", Map.of("a", 1, "b", 2))).isInstanceOf(ToolException.class)
                    .hasMessageContaining("refused to resume it (GET with Last-Event-ID e1 answered 405)");
            assertThat(http.resumptions()).hasSize(1);
        }
    }

    @Test
    void garbageOnTheStreamIsAClearErrorNotAHang() throws Exception {
        try (ResumingHttpMcpServer http = ResumingHttpMcpServer.start(Mode.GARBAGE, 100);
                McpServer server = client(http)) {
            server.listTools();
            assertThatThrownBy(() -> server.call("add", Map.of("a", 1, "b", 2))).isInstanceOf(ToolException.class)
                    .hasMessageContaining("sent something that is not a JSON-RPC message: '{\"jsonrpc\": broken'");
            assertThat(http.resumptions()).isEmpty();
        }
        try (ResumingHttpMcpServer http = ResumingHttpMcpServer.start(Mode.GARBAGE_ONLY, 100);
                McpServer server = client(http)) {
            server.listTools();
            assertThatThrownBy(() -> server.call("add", Map.of("a", 1, "b", 2))).isInstanceOf(ToolException.class)
                    .hasMessageContaining("closed the stream of request")
                    .hasMessageContaining("before answering it, with no event id to resume from");
            assertThat(http.resumptions()).isEmpty();
        }
    }

    @Test
    void theServerInitiatedStreamOpensWithTheSessionAndDeliversItsMessages() throws Exception {
        try (ResumingHttpMcpServer http = ResumingHttpMcpServer.start(Mode.JSON, 500)) {
            http.push("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
            ResumableHttpClientTransport transport = ResumableHttpClientTransport.of(URI.create(http.url()),
                    Map.of("Authorization", "Bearer t"), Duration.ofSeconds(20),
                    new JacksonMcpJsonMapper(JsonMapper.builder().build()));
            LinkedBlockingQueue<McpSchema.JSONRPCMessage> received = new LinkedBlockingQueue<>();
            transport.connect(m -> m.doOnNext(received::add)).block();
            transport.sendMessage(new McpSchema.JSONRPCRequest("2.0", "initialize", "i-1",
                    Map.of("protocolVersion", "2025-06-18"))).block();

            McpSchema.JSONRPCMessage first = received.poll(30, TimeUnit.SECONDS);
            McpSchema.JSONRPCMessage second = received.poll(30, TimeUnit.SECONDS);
            assertThat(List.of(first, second)).anySatisfy(m -> assertThat(m)
                    .isInstanceOfSatisfying(McpSchema.JSONRPCResponse.class, r -> assertThat(r.id()).isEqualTo("i-1")))
                    .anySatisfy(m -> assertThat(m).isInstanceOfSatisfying(McpSchema.JSONRPCNotification.class,
                            n -> assertThat(n.method()).isEqualTo("notifications/tools/list_changed")));
            assertThat(transport.sessionId()).contains(ResumingHttpMcpServer.SESSION);
            assertThat(http.seen()).filteredOn(s -> s.method().equals("GET")).singleElement()
                    .satisfies(s -> assertThat(s.session()).contains(ResumingHttpMcpServer.SESSION));
            transport.closeGracefully().block(Duration.ofSeconds(30));
            assertThat(transport.sessionId()).isEmpty();
            assertThatThrownBy(() -> transport.sendMessage(new McpSchema.JSONRPCNotification("2.0", "ping", null))
                    .block()).hasMessageContaining("closed");
        }
    }
}

package dev.engram.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ToolException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A bad MCP server never hangs its caller: stalls and crashes become tool errors within the call timeout, the server's
 * status says what happened, and its circuit opens and half-opens. The {@code @Timeout}s only guard against a hang;
 * they are far above the timeouts under test.
 */
@Timeout(120)
class McpServerTest {
    private static final McpServerOptions QUICK = McpServerOptions.defaults().withConnectTimeout(Duration.ofSeconds(20))
            .withCallTimeout(Duration.ofSeconds(2));

    @Test
    void aStalledServerFailsTheCallAtItsTimeoutAndIsReportedFailing() {
        try (McpServer server = McpServer.of(McpServerSpec.stdio("stall", StubMcpServer.command("stall"), Map.of()), QUICK)) {
            assertThat(server.listTools()).extracting(t -> t.name()).containsExactly("echo");
            assertThat(server.status().state()).isEqualTo(McpServerStatus.State.CONNECTED);

            assertThatThrownBy(() -> server.call("echo", Map.of("text", "hi"))).isInstanceOf(ToolException.class)
                    .hasMessageContaining("MCP server 'stall' failed to run 'echo'")
                    .hasMessageContaining("did not answer within 2 s (it may be stalled)");

            McpServerStatus status = server.status();
            assertThat(status.state()).isEqualTo(McpServerStatus.State.FAILING);
            assertThat(status.consecutiveFailures()).isEqualTo(1);
            assertThat(status.lastError()).get().asString().contains("stalled");
        }
    }

    @Test
    void aServerThatCrashesMidCallIsAToolErrorAndIsRestartedForTheNextCall() {
        try (McpServer server = McpServer.of(McpServerSpec.stdio("crash", StubMcpServer.command("crash"), Map.of()),
                QUICK.withCircuit(5, Duration.ofMinutes(1)))) {
            server.listTools();
            assertThatThrownBy(() -> server.call("echo", Map.of("text", "hi"))).isInstanceOf(ToolException.class)
                    .hasMessageContaining("MCP server 'crash' failed to run 'echo'");
            assertThat(server.status().state()).isEqualTo(McpServerStatus.State.FAILING);
            // The next call starts the server again (it lists its tools again before crashing once more).
            assertThat(server.listTools()).hasSize(1);
            assertThat(server.status().state()).isEqualTo(McpServerStatus.State.CONNECTED);
        }
    }

    @Test
    void streamableHttpWithABearerTokenListsAndCallsTools() throws Exception {
        try (StubHttpMcpServer http = StubHttpMcpServer.start("s3cret");
                McpServer server = McpServer.of(McpServerSpec.streamableHttp("calc", http.url(), Map.of())
                        .withBearerToken("s3cret"), QUICK)) {
            assertThat(server.listTools()).extracting(t -> t.name()).containsExactly("add");
            assertThat(server.tools()).extracting(t -> t.name()).containsExactly("calc_add");
            assertThat(server.call("add", Map.of("a", 1, "b", 2))).isEqualTo("3.0");
            assertThat(http.calls()).isEqualTo(1);
        }
    }

    @Test
    void aWrongBearerTokenIsAClearErrorAndNoToolIsKnown() throws Exception {
        try (StubHttpMcpServer http = StubHttpMcpServer.start("s3cret");
                McpServer server = McpServer.of(McpServerSpec.streamableHttp("calc", http.url(), Map.of())
                        .withBearerToken("wrong"), QUICK)) {
            assertThatThrownBy(server::listTools).isInstanceOf(McpServerException.class)
                    .hasMessageContaining("MCP server 'calc' failed to list its tools");
            assertThat(server.knownTools()).isEmpty();
            assertThat(server.status().state()).isEqualTo(McpServerStatus.State.FAILING);
        }
    }

    @Test
    void anHttpServerAtAnAddressTheEgressRuleRefusesIsNeverContacted() throws Exception {
        try (StubHttpMcpServer http = StubHttpMcpServer.start("t");
                McpServer server = McpServer.of(McpServerSpec.streamableHttp("calc", http.url(), Map.of()).withBearerToken("t"),
                        QUICK.withAddressCheck(a -> !a.isLoopbackAddress()))) {
            assertThatThrownBy(server::listTools).isInstanceOf(McpServerException.class)
                    .hasMessageContaining("resolves to 127.0.0.1, an address this server may not reach");
            assertThat(http.requests()).isZero();
        }
    }

    @Test
    void theCircuitOpensAfterConsecutiveFailuresAndHalfOpensAfterTheCoolDown() throws Exception {
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (StubHttpMcpServer http = StubHttpMcpServer.start("t");
                McpServer server = McpServer.of(McpServerSpec.streamableHttp("calc", http.url(), Map.of()).withBearerToken("t"),
                        QUICK.withCircuit(2, Duration.ofSeconds(30)).withClock(clock))) {
            server.listTools();
            http.failing(true);
            for (int i = 0; i < 2; i++) {
                assertThatThrownBy(() -> server.call("add", Map.of("a", 1, "b", 2))).isInstanceOf(ToolException.class)
                        .hasMessageContaining("failed to");
            }
            assertThat(server.status().state()).isEqualTo(McpServerStatus.State.CIRCUIT_OPEN);
            assertThat(server.status().retryAt()).contains(Instant.parse("2026-01-01T00:00:30Z"));

            http.failing(false);
            assertThatThrownBy(() -> server.call("add", Map.of("a", 1, "b", 2))).isInstanceOf(ToolException.class)
                    .hasMessageContaining("is unavailable: it failed 2 times in a row")
                    .hasMessageContaining("refused until 2026-01-01T00:00:30Z");
            assertThat(http.calls()).isZero(); // refused without reaching the server

            clock.now = Instant.parse("2026-01-01T00:00:31Z");
            assertThat(server.call("add", Map.of("a", 2, "b", 2))).isEqualTo("4.0"); // the half-open trial
            assertThat(server.status().state()).isEqualTo(McpServerStatus.State.CONNECTED);
            assertThat(server.status().consecutiveFailures()).isZero();
        }
    }

    @Test
    void aFailedHalfOpenTrialOpensTheCircuitAgain() throws Exception {
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (StubHttpMcpServer http = StubHttpMcpServer.start("t");
                McpServer server = McpServer.of(McpServerSpec.streamableHttp("calc", http.url(), Map.of()).withBearerToken("t"),
                        QUICK.withCircuit(1, Duration.ofSeconds(30)).withClock(clock))) {
            http.failing(true);
            assertThatThrownBy(server::listTools).isInstanceOf(McpServerException.class);
            clock.now = Instant.parse("2026-01-01T00:00:31Z");
            assertThatThrownBy(server::listTools).isInstanceOf(McpServerException.class).hasMessageContaining("failed to");
            assertThat(server.status().state()).isEqualTo(McpServerStatus.State.CIRCUIT_OPEN);
            assertThat(server.status().retryAt()).contains(Instant.parse("2026-01-01T00:01:01Z"));
        }
    }

    @Test
    void aClosedServerRefusesCalls() {
        McpServer server = McpServer.of(McpServerSpec.stdio("ok", StubMcpServer.command("ok"), Map.of()), QUICK);
        assertThat(server.call("echo", Map.of("text", "hi"))).isEqualTo("echo: hi");
        server.close();
        assertThatThrownBy(() -> server.call("echo", Map.of("text", "hi"))).isInstanceOf(ToolException.class)
                .hasMessageContaining("removed or shut down");
    }

    @Test
    void specsRefuseBadNamesUrlsAndHeaders() {
        assertThatThrownBy(() -> McpServerSpec.stdio("bad name", List.of("x"), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 to 40 letters");
        assertThatThrownBy(() -> McpServerSpec.stdio("s", List.of(), Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("give the program");
        assertThatThrownBy(() -> McpServerSpec.streamableHttp("s", "file:///etc/passwd", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http(s) URL");
        assertThatThrownBy(() -> McpServerSpec.sse("s", "http://user:pw@example.com/sse", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no user");
        assertThatThrownBy(() -> McpServerSpec.streamableHttp("s", "https://example.com/mcp", Map.of("Host", "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("HTTP client's own");
        assertThatThrownBy(() -> McpServerSpec.streamableHttp("s", "https://example.com/mcp", Map.of("X-A", "1\r\nX-B: 2")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line break");
        assertThatThrownBy(() -> McpServerSpec.stdio("s", List.of("x"), Map.of()).withBearerToken("t"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("for HTTP servers");
    }

    /** A clock the test moves. */
    static final class MutableClock extends Clock {
        volatile Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}

package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The webhook channel against a local HTTP server on 127.0.0.1, and the {@code message} tool over channels. */
class OutboundChannelTest {
    private HttpServer http;
    private final AtomicInteger hits = new AtomicInteger();
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    /** The statuses the server answers, in turn; the last one repeats. */
    private volatile List<Integer> statuses = List.of(200);

    @BeforeEach
    void start() throws Exception {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/hook", ex -> {
            bodies.add(new String(ex.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            int n = hits.getAndIncrement();
            int status = statuses.get(Math.min(n, statuses.size() - 1));
            if (status / 100 == 3) {
                ex.getResponseHeaders().add("Location", "http://127.0.0.1:" + http.getAddress().getPort() + "/elsewhere");
            }
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
        http.createContext("/slow", ex -> {
            hits.incrementAndGet();
            try {
                Thread.sleep(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        http.createContext("/elsewhere", ex -> {
            bodies.add("followed");
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        http.start();
    }

    @AfterEach
    void stop() {
        http.stop(0);
    }

    private URI url(String path) {
        return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + path);
    }

    private static OutboundMessage message(String text) {
        return new OutboundMessage("ana", "helper", text, List.of("report.md"), Instant.parse("2026-11-25T10:00:00Z"));
    }

    @Test
    void aMessageIsPostedAsJson() {
        SendResult r = OutboundChannel.webhook("team", url("/hook")).send(message("hello \"team\""));
        assertThat(r).isEqualTo(SendResult.delivered("HTTP 200"));
        assertThat(bodies).containsExactly("{\"channel\":\"team\",\"user_id\":\"ana\",\"agent_id\":\"helper\","
                + "\"text\":\"hello \\\"team\\\"\",\"links\":[\"report.md\"],\"sent_at\":\"2026-11-25T10:00:00Z\"}");
    }

    @Test
    void a5xxIsTriedAgainUntilItSucceedsOrTheAttemptsRunOut() {
        statuses = List.of(503, 500, 200);
        assertThat(OutboundChannel.webhook("team", url("/hook")).send(message("x")))
                .isEqualTo(SendResult.delivered("HTTP 200 after 3 attempts"));
        hits.set(0);
        statuses = List.of(502);
        SendResult failed = OutboundChannel.webhook("team", url("/hook"), Duration.ofSeconds(5), 2).send(message("x"));
        assertThat(failed.delivered()).isFalse();
        assertThat(failed.detail()).isEqualTo("HTTP 502 after 2 attempts");
        assertThat(hits).hasValue(2);
    }

    @Test
    void a4xxIsNotRetriedAndARedirectIsNotFollowed() {
        statuses = List.of(404);
        assertThat(OutboundChannel.webhook("team", url("/hook")).send(message("x")).detail()).isEqualTo("the webhook answered HTTP 404");
        assertThat(hits).hasValue(1);
        hits.set(0);
        statuses = List.of(302);
        SendResult r = OutboundChannel.webhook("team", url("/hook")).send(message("x"));
        assertThat(r.delivered()).isFalse();
        assertThat(r.detail()).contains("HTTP 302", "redirects are not followed");
        assertThat(bodies).doesNotContain("followed");
        assertThat(hits).hasValue(1);
    }

    @Test
    void aSlowWebhookTimesOutAndAnUnreachableOneFails() {
        SendResult slow = OutboundChannel.webhook("team", url("/slow"), Duration.ofMillis(300), 1).send(message("x"));
        assertThat(slow.delivered()).isFalse();
        assertThat(slow.detail()).contains("HttpTimeoutException");
        int port;
        try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        SendResult closed = OutboundChannel.webhook("team", URI.create("http://127.0.0.1:" + port + "/x"), Duration.ofSeconds(2), 2)
                .send(message("x"));
        assertThat(closed.delivered()).isFalse();
        assertThat(closed.detail()).startsWith("cannot reach the webhook").endsWith("after 2 attempts");
    }

    @Test
    void badSettingsAreRefusedAtOnce() {
        assertThatThrownBy(() -> OutboundChannel.webhook("team", URI.create("file:///etc/passwd")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("absolute http or https URL");
        assertThatThrownBy(() -> OutboundChannel.webhook("team", URI.create("/relative")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OutboundChannel.webhook("bad name", url("/hook"))).hasMessageContaining("channel name");
        assertThatThrownBy(() -> OutboundChannel.webhook("team", url("/hook"), Duration.ZERO, 1)).hasMessageContaining("timeout");
        assertThatThrownBy(() -> OutboundChannel.webhook("team", url("/hook"), Duration.ofSeconds(1), 0)).hasMessageContaining("1 to 10");
    }

    private ToolResult call(ToolRegistry registry, String args) {
        ToolContext ctx = ToolContext.builder().userId("ana").agentId("helper").sessionId("s1").build();
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build().execute(ToolCall.of("message", args), ctx);
    }

    @Test
    void theMessageToolPicksAChannelByNameAndNeverTakesAnAddress() {
        List<OutboundMessage> other = new CopyOnWriteArrayList<>();
        OutboundChannel recorder = new OutboundChannel() {
            @Override
            public String name() {
                return "log";
            }

            @Override
            public SendResult send(OutboundMessage m) {
                other.add(m);
                return SendResult.delivered("logged");
            }
        };
        ToolRegistry registry = ToolRegistry.create().register(BuiltinTools.message(List.of(
                OutboundChannel.webhook("team", url("/hook")), recorder)));
        assertThat(registry.list().getFirst().description()).contains("(team, log)");

        ToolResult noName = call(registry, "{\"text\": \"hi\"}");
        assertThat(noName.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(noName.content()).contains("several channels (team, log)");
        ToolResult unknown = call(registry, "{\"text\": \"hi\", \"channel\": \"http://evil.example/\"}");
        assertThat(unknown.content()).contains("There is no channel 'http://evil.example/'");
        assertThat(call(registry, "{\"text\": \" \", \"channel\": \"log\"}").content()).contains("text is empty");
        assertThat(hits).hasValue(0);
        assertThat(other).isEmpty();

        ToolResult sent = call(registry, "{\"text\": \"hi\", \"channel\": \"log\", \"links\": [\"/canvas/helper/chart\"]}");
        assertThat(sent.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(sent.content()).contains("\"delivered\":true", "logged");
        assertThat(other).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("hi");
            assertThat(m.links()).containsExactly("/canvas/helper/chart");
            assertThat(m.userId()).isEqualTo("ana");
        });
    }

    @Test
    void aFailedDeliveryIsAnErrorTheModelReads() {
        statuses = List.of(500);
        ToolRegistry registry = ToolRegistry.create().register(BuiltinTools.message(List.of(
                OutboundChannel.webhook("team", url("/hook"), Duration.ofSeconds(2), 1))));
        ToolResult r = call(registry, "{\"text\": \"hi\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains("Channel 'team' did not deliver the message: HTTP 500 after 1 attempt");
        assertThatThrownBy(() -> BuiltinTools.message(List.of())).hasMessageContaining("at least one");
    }
}

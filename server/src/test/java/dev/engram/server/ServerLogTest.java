package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ManualClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.LoggerFactory;

/**
 * The log is not a weapon: clients that close their connections mid-request (hundreds of them) leave no stack trace
 * and a bounded log, and a repeated incident is logged once per kind per window with the count of those left out.
 * The log is captured from both of the server's channels: java.util.logging (Helidon's) and slf4j (Engram's, the
 * simple binding in tests, which writes to {@code System.err}).
 */
@Isolated // no class runs beside it: it captures the JVM's System.err and JUL root logger
class ServerLogTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream originalErr;
    private Handler jul;
    private LogLimiter originalLimiter;

    @BeforeEach
    void capture() {
        originalErr = System.err;
        PrintStream tee = new PrintStream(captured, true, StandardCharsets.UTF_8);
        System.setErr(tee);
        SimpleFormatter format = new SimpleFormatter();
        jul = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (isLoggable(r)) {
                    tee.print(format.format(r));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.setLevel(Level.INFO);
        Logger.getLogger("").addHandler(jul);
        originalLimiter = Incidents.limiter();
    }

    @AfterEach
    void restore() {
        Logger.getLogger("").removeHandler(jul);
        System.setErr(originalErr);
        Incidents.limiter(originalLimiter);
        originalErr.print(text());
    }

    private String text() {
        return captured.toString(StandardCharsets.UTF_8);
    }

    private static void abort(int port, String partial) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write(partial.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    @Test
    void hundredsOfClientsClosingMidRequestLeaveNoTraceAndABoundedLog() throws Exception {
        try (ServerFixture fx = new ServerFixture(dir)) {
            String agent = fx.agent(fx.ana, "helper");
            LoggerFactory.getLogger(ServerLogTest.class).warn("capture check");
            assertThat(text()).as("the slf4j binding's output is captured").contains("capture check");
            Logger.getLogger(ServerLogTest.class.getName()).warning("jul capture check");
            assertThat(text()).as("java.util.logging's output is captured").contains("jul capture check");
            int before = captured.size();
            String auth = "Authorization: Bearer " + fx.ana + "\r\n";
            String[] partials = {
                "GET /v1/agents/ HTTP/1.1\r\nHost: x\r\n",
                "POST /v1/agents/" + agent + "/messages HTTP/1.1\r\nHost: x\r\n" + auth
                        + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"messages\": [",
                "POST /v1/blocks/ HTTP/1.1\r\nHost: x\r\n" + auth + "Transfer-Encoding: chunked\r\n\r\n40\r\n{\"label\":",
                "GET /v1/agents/" + agent + " HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n",
                "POST /v1/agents/import HTTP/1.1\r\nHost: x\r\n" + auth
                        + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 5000\r\n\r\n--b\r\n",
                "GET /v1/ag",
            };
            int connections = 300;
            for (int i = 0; i < connections; i++) {
                abort(fx.server.port(), partials[i % partials.length]);
            }
            // The server handles the closed connections on its own threads: wait until the log stops growing.
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            int last = -1;
            while (System.nanoTime() < deadline && captured.size() != last) {
                last = captured.size();
                Thread.sleep(500);
            }
            assertThat(fx.get(fx.ana, "/v1/agents/" + agent).status()).as("the server still answers").isEqualTo(200);
            String log = text().substring(before);
            assertThat(log).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception");
            assertThat(log.lines().count()).as("a bounded log for %d aborted requests:%n%s", connections, log).isLessThan(10);
        }
    }

    @Test
    void aRepeatedIncidentIsLoggedOncePerWindowWithTheCountOfThoseLeftOut() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        Incidents.limiter(new LogLimiter(clock, Duration.ofMinutes(1)));
        IllegalStateException failure = new IllegalStateException("the disk is on fire");
        for (int i = 0; i < 200; i++) {
            Incidents.unexpected("Request GET /v1/agents/ failed", failure);
        }
        String log = text();
        assertThat(log.lines().filter(l -> l.contains("the disk is on fire") && l.startsWith("java.lang")).count())
                .as("one trace per window").isEqualTo(1);
        assertThat(log.lines().filter(l -> l.contains("Request GET /v1/agents/ failed")).count()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(61));
        Incidents.unexpected("Request GET /v1/agents/ failed", failure);
        assertThat(text()).contains("199 more like it since the last one logged");
        Incidents.unexpected("Request GET /v1/agents/ failed", new IllegalArgumentException("another kind"));
        assertThat(text()).as("another kind has its own window").contains("another kind");
    }

    @Test
    void helidonsRepeatedWarningsAreLimitedAndClientAbortsDropped() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        Incidents.limiter(new LogLimiter(clock, Duration.ofMinutes(1)));
        HelidonLog.install();
        Logger helidon = Logger.getLogger(HelidonLog.LOGGERS.getFirst());
        for (int i = 0; i < 50; i++) {
            helidon.log(Level.WARNING, "Internal server error", new RuntimeException("wrapped",
                    new java.net.SocketException("Connection reset")));
            helidon.log(Level.WARNING, "Something odd happened");
        }
        assertThat(text()).doesNotContain("Internal server error").doesNotContain("Connection reset");
        assertThat(text().lines().filter(l -> l.contains("Something odd happened")).count()).isEqualTo(1);
        clock.advance(Duration.ofMinutes(2));
        helidon.log(Level.WARNING, "Something odd happened");
        assertThat(text()).contains("Something odd happened (49 more like this since the last one logged were left out)");
    }

    @Test
    void theLimiterCountsWhatItLeavesOutAndForgetsNothingWithinItsWindow() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        LogLimiter limiter = new LogLimiter(clock, Duration.ofSeconds(10));
        assertThat(limiter.admit("a")).hasValue(0);
        assertThat(limiter.admit("a")).isEmpty();
        assertThat(limiter.admit("b")).hasValue(0);
        clock.advance(Duration.ofSeconds(9));
        assertThat(limiter.admit("a")).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.admit("a")).hasValue(2);
        assertThat(limiter.admit("a")).isEmpty();
    }
}

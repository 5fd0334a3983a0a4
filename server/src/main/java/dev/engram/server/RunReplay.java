package dev.engram.server;

import dev.engram.memory.Run;
import dev.engram.memory.RunEvent;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * A background run's stream picked up where it broke (Letta's {@code RetrieveStreamRequest}): the kept events after
 * {@code starting_after}, then the run's new events as its server writes them (this server's or another's on the same
 * database: the store is polled every {@code poll_interval}), until the run ends, then {@code [DONE]}. A run whose
 * server went away ({@link RunLog#isStale}) ends the stream with an {@code error} event. {@code include_pings}
 * (Letta's default) sends a {@code ping} every ping interval while nothing else comes.
 */
final class RunReplay {
    private static final Logger LOG = LoggerFactory.getLogger(RunReplay.class);
    /** How long a resume waits for the events a client saw but the run's server has not written yet. */
    private static final Duration CATCH_UP = Duration.ofSeconds(2);

    private RunReplay() {
    }

    /**
     * Streams the run after the body's {@code starting_after}: a 400 for a run not in the background, or a
     * {@code starting_after} that is negative or beyond the run's last event; a 410 when the events after it are no
     * longer all kept; a 422 for a malformed field.
     */
    static void stream(Api api, Run run, Body body, ServerResponse res) {
        long after = body.integer("starting_after").orElse(0);
        boolean pings = body.bool("include_pings").orElse(true);
        Duration poll = pollInterval(body);
        int batch = body.integer("batch_size").orElse(100);
        if (batch < 1 || batch > 1_000) {
            throw body.problem("value_error", "batch_size is 1 to 1000, got " + batch, "batch_size");
        }
        if (!run.background()) {
            throw ApiException.badRequest("Run was not created in background mode, so it cannot be retrieved.");
        }
        if (after < 0) {
            throw ApiException.badRequest("starting_after is the seq_id of the last event received (0 for none), not " + after + ".");
        }
        String user = run.userId();
        api.runs.flush(run.id());
        long last = api.store.runs().lastSeq(user, run.id());
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (after > last && run.status().isActive() && System.nanoTime() < deadline) {
            sleep(poll);
            api.runs.flush(run.id());
            last = api.store.runs().lastSeq(user, run.id());
            run = api.store.runs().get(user, run.id()).orElse(run);
        }
        if (after > last) {
            throw ApiException.badRequest("starting_after " + after + " is beyond the last event of run '" + run.id()
                    + "' (seq_id " + last + "); send the seq_id of the last event received.");
        }
        List<RunEvent> events = api.store.runs().events(user, run.id(), after, batch);
        if (!events.isEmpty() && events.getFirst().seq() > after + 1) {
            throw ApiException.of(Status.GONE_410, "Run '" + run.id() + "' keeps only its newest events: the events after seq_id "
                    + after + " up to " + (events.getFirst().seq() - 1) + " are no longer kept; read the run's messages instead.");
        }
        new Sender(api, res, run.id(), pings).follow(run, after, events, batch, poll);
    }

    private static Duration pollInterval(Body body) {
        Optional<JsonNode> raw = body.raw("poll_interval").filter(v -> !v.isNull());
        if (raw.isEmpty()) {
            return Duration.ofMillis(100);
        }
        if (!raw.get().isNumber()) {
            throw body.problem("float_type", "Input should be a valid number", "poll_interval");
        }
        double seconds = raw.get().doubleValue();
        if (!(seconds >= 0.01 && seconds <= 10)) {
            throw body.problem("value_error", "poll_interval is 0.01 to 10 seconds, got " + seconds, "poll_interval");
        }
        return Duration.ofNanos((long) (seconds * 1e9));
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.of(Status.SERVICE_UNAVAILABLE_503, "The server is stopping.");
        }
    }

    /** Writes the events of one resumed stream. */
    private static final class Sender {
        private final Api api;
        private final ServerResponse res;
        private final String runId;
        private final boolean pings;
        private OutputStream out;
        private long lastWrite = System.nanoTime();

        Sender(Api api, ServerResponse res, String runId, boolean pings) {
            this.api = api;
            this.res = res;
            this.runId = runId;
            this.pings = pings;
        }

        void follow(Run run, long after, List<RunEvent> first, int batch, Duration poll) {
            String user = run.userId();
            long cursor = after;
            List<RunEvent> events = first;
            try {
                open();
                while (true) {
                    for (RunEvent e : events) {
                        write(e.event(), e.data());
                        cursor = e.seq();
                    }
                    if (events.size() == batch) {
                        events = api.store.runs().events(user, runId, cursor, batch);
                        continue;
                    }
                    Run now = api.store.runs().get(user, runId).orElse(null);
                    if (now == null || !now.status().isActive()) {
                        // the run ended (or was purged): what it wrote before it ended, then the end
                        events = now == null ? List.of() : api.store.runs().events(user, runId, cursor, batch);
                        if (events.isEmpty()) {
                            write("", "[DONE]");
                            return;
                        }
                        continue;
                    }
                    if (api.runs.isStale(now)) {
                        write("error", Body.JSON.createObjectNode().put("message_type", "error_message").put("run_id", runId)
                                .put("error_type", "run_lost").put("detail", "The server running run '" + runId
                                        + "' stopped before the run ended; read the agent's messages for what it stored.")
                                .toString());
                        write("", "[DONE]");
                        return;
                    }
                    if (pings && System.nanoTime() - lastWrite >= api.settings.pingInterval().toNanos()) {
                        write("", Body.JSON.createObjectNode().put("id", "ping-" + runId).put("date", LettaViews.date(Instant.now()))
                                .put("message_type", "ping").put("run_id", runId).toString());
                    }
                    sleep(poll);
                    events = api.store.runs().events(user, runId, cursor, batch);
                }
            } catch (UncheckedIOException | ServerConnectionException e) {
                LOG.debug("The resumed stream's client went away: {}", e.getMessage());
            } finally {
                if (out != null) {
                    try {
                        out.close();
                    } catch (IOException e) {
                        LOG.debug("The resumed stream's client went away: {}", e.toString());
                    }
                }
            }
        }

        /** Starts the response, so that the client knows the stream is on before the run's next event. */
        private void open() {
            res.header(HeaderNames.CONTENT_TYPE, "text/event-stream");
            res.header(HeaderNames.CACHE_CONTROL, "no-cache");
            out = res.outputStream();
            try {
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("the stream's client went away", e);
            }
        }

        private void write(String event, String data) {
            try {
                out.write(((event.isEmpty() ? "" : "event: " + event + "\n") + "data: " + data + "\n\n")
                        .getBytes(StandardCharsets.UTF_8));
                out.flush();
                lastWrite = System.nanoTime();
            } catch (IOException e) {
                throw new UncheckedIOException("the stream's client went away", e);
            }
        }
    }
}

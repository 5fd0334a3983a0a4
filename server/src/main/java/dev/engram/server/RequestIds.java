package dev.engram.server;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.MDC;

/**
 * Every request's id, and what hangs on it. The first routing filter: it takes the client's {@code X-Request-Id} when it
 * is sane (1 to 64 letters, digits and {@code . _ : -}), else makes one; echoes it in the response's
 * {@code X-Request-Id}; registers it in the request's context (error bodies carry it as {@code request_id}); and puts
 * it in SLF4J's {@link MDC} under {@value #MDC_KEY} while the request is handled, so that every log line written
 * meanwhile carries it (a turn that runs on a thread of its own takes it along, {@link #carry}). When the response has
 * been sent, the request counts in the per-user request meter.
 */
final class RequestIds implements Filter {
    /** The header a client may send and the server always answers. */
    static final HeaderName HEADER = HeaderNames.create("X-Request-Id");
    /** The MDC key of the request id in log lines. */
    static final String MDC_KEY = "request_id";

    private static final Pattern SANE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    /** A request's id, as registered in its context. */
    record Id(String value) {
    }

    private final Metrics metrics;

    RequestIds(Metrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        long start = System.nanoTime();
        String id = req.headers().first(HEADER).filter(v -> SANE.matcher(v).matches())
                .orElseGet(() -> UUID.randomUUID().toString().replace("-", ""));
        req.context().register(new Id(id));
        res.header(HEADER, id);
        String method = req.prologue().method().text();
        res.whenSent(() -> metrics.request(user(req), method, res.status().code(),
                Duration.ofNanos(System.nanoTime() - start)));
        MDC.put(MDC_KEY, id);
        try {
            chain.proceed();
        } finally {
            MDC.remove(MDC_KEY);
        }
    }

    /** The user tag of a request: its key's user, {@code _admin} for an admin key, {@code _anonymous} without one. */
    private static String user(ServerRequest req) {
        return req.context().get(Caller.class).map(c -> c.user().orElse("_admin")).orElse("_anonymous");
    }

    /** The id of a request (every request has one once the filter ran; {@code -} for one it did not see). */
    static String of(ServerRequest req) {
        return req.context().get(Id.class).map(Id::value).orElse("-");
    }

    /** The id of the request this thread handles now (from the log's context); {@code -} when there is none. */
    static String current() {
        String id = MDC.get(MDC_KEY);
        return id == null ? "-" : id;
    }

    /** Runs {@code work} with the request's id in the MDC (error handlers run after the filter has returned). */
    static void during(ServerRequest req, Runnable work) {
        String previous = MDC.get(MDC_KEY);
        MDC.put(MDC_KEY, of(req));
        try {
            work.run();
        } finally {
            if (previous == null) {
                MDC.remove(MDC_KEY);
            } else {
                MDC.put(MDC_KEY, previous);
            }
        }
    }

    /** {@code work} as it should run on another thread: with this thread's MDC (the request id), cleared after. */
    static Runnable carry(Runnable work) {
        Map<String, String> context = MDC.getCopyOfContextMap();
        return () -> {
            Map<String, String> before = MDC.getCopyOfContextMap();
            if (context == null) {
                MDC.clear();
            } else {
                MDC.setContextMap(context);
            }
            try {
                work.run();
            } finally {
                if (before == null) {
                    MDC.clear();
                } else {
                    MDC.setContextMap(before);
                }
            }
        };
    }
}

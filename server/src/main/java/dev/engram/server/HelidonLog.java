package dev.engram.server;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Helidon's web server logs through {@code System.Logger}, which is {@code java.util.logging} unless the
 * application routes it elsewhere. A client that closes its connection mid-request makes Helidon log a warning
 * with a stack trace ({@code Internal server error ... InsufficientDataAvailableException}), one per
 * connection: 19,800 half-open connections wrote 31 MB. This filter, on Helidon's web server loggers, turns those
 * into debug lines without a trace ({@link Incidents#clientAborted}) and lets any other warning of theirs through at
 * most once per kind per {@link Incidents#WINDOW}, saying how many of that kind were left out. Installed once per
 * process by {@link EngramServer}, after any filter the application had put there; the loggers are held so that
 * the filter stays.
 */
final class HelidonLog implements Filter {
    /** The web server's classes that log (their logger is named after the class). */
    static final List<String> LOGGERS = List.of("io.helidon.webserver.http1.Http1Connection",
            "io.helidon.webserver.http1.Http1ServerRequestWithEntity", "io.helidon.webserver.http1.Http1ServerResponse",
            "io.helidon.webserver.http.ErrorHandlers", "io.helidon.webserver.http.HttpRoutingImpl",
            "io.helidon.webserver.http.DirectHandlers", "io.helidon.webserver.IdleTimeoutHandler",
            "io.helidon.webserver.ConnectionHandler", "io.helidon.webserver.ServerListener",
            "io.helidon.webserver.ProxyProtocolHandler");

    private static final AtomicBoolean INSTALLED = new AtomicBoolean();
    @SuppressWarnings("unused") // held: java.util.logging keeps loggers weakly, and a collected logger loses its filter
    private static List<Logger> held;

    private final Filter previous;

    private HelidonLog(Filter previous) {
        this.previous = previous;
    }

    /** Puts the filter on Helidon's web server loggers, once per process. */
    static void install() {
        if (INSTALLED.compareAndSet(false, true)) {
            held = LOGGERS.stream().map(Logger::getLogger).peek(l -> l.setFilter(new HelidonLog(l.getFilter()))).toList();
        }
    }

    @Override
    public boolean isLoggable(LogRecord r) {
        if (previous != null && !previous.isLoggable(r)) {
            return false;
        }
        if (r.getLevel().intValue() < Level.WARNING.intValue()) {
            return true;
        }
        Throwable thrown = r.getThrown();
        if (thrown != null && Incidents.isClientAbort(thrown)) {
            Incidents.clientAborted("a request (" + r.getLoggerName() + ": " + r.getMessage() + ")", thrown);
            return false;
        }
        String kind = "helidon " + r.getLoggerName() + "|" + r.getMessage() + "|" + (thrown == null ? "" : Incidents.kind(thrown));
        var admitted = Incidents.limiter().admit(kind);
        if (admitted.isEmpty()) {
            return false;
        }
        if (admitted.getAsLong() > 0) {
            r.setMessage(r.getMessage() + " (" + admitted.getAsLong() + " more like this since the last one logged were left out)");
        }
        return true;
    }
}

package dev.engram.server;

import io.helidon.common.buffers.DataReader;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the server logs about failures, and what it tells the client about them. A client that closes its
 * connection mid-request is a debug line without a trace. An unexpected failure gets an incident id that the
 * client is told and the log has with the stack trace, at most once per kind of failure (its class and where it
 * was thrown) per {@link #WINDOW}: the others of that kind within the window are debug lines, and the next one
 * logged says how many there were ({@link LogLimiter}). An exception's message reaches a client only when it is
 * a sentence of Engram's, never Java's wording ({@code No enum constant ...}, class names, {@code For input
 * string}).
 */
final class Incidents {
    private static final Logger LOG = LoggerFactory.getLogger(Incidents.class);

    /** How long a kind of incident stays quiet after it is logged. */
    static final Duration WINDOW = Duration.ofMinutes(1);

    /** Java's own wording, which says nothing to a client and tells an attacker what runs here. */
    private static final Pattern JAVA_WORDING = Pattern.compile("No enum constant|For input string|Cannot invoke \""
            + "|Cannot read (field|the array)|because \"|\\b(java|javax|jdk|sun|io\\.helidon|tools\\.jackson|org\\.[a-z]+)\\.[a-z]"
            + "|\\bdev\\.engram\\.[a-z.]+\\.[A-Z]|\\b[A-Z]\\w*(Exception|Error)\\b|\\bat [\\w.$]+\\(|Index \\d+ out of bounds"
            + "|\\b[A-Z]\\w+\\.[a-z]\\w*\\(\\)");

    private static volatile LogLimiter limiter = new LogLimiter(Clock.systemUTC(), WINDOW);

    private Incidents() {
    }

    /** Replaces the limiter (tests give one on a clock they control); returns the one it replaced. */
    static LogLimiter limiter(LogLimiter replacement) {
        LogLimiter old = limiter;
        limiter = replacement;
        return old;
    }

    static LogLimiter limiter() {
        return limiter;
    }

    /**
     * Logs an unexpected failure (its trace at most once per kind per window) and returns the incident id the
     * client is told.
     */
    static String unexpected(String what, Throwable e) {
        String incident = UUID.randomUUID().toString().substring(0, 8);
        OptionalLong admitted = limiter.admit("error " + kind(e));
        if (admitted.isEmpty()) {
            LOG.debug("{} (incident {}; logged with its trace once per {}): {}", what, incident, WINDOW, e.toString());
        } else if (admitted.getAsLong() > 0) {
            LOG.error("{} (incident {}; {} more like it since the last one logged were logged at debug level)", what,
                    incident, admitted.getAsLong(), e);
        } else {
            LOG.error("{} (incident {})", what, incident, e);
        }
        return incident;
    }

    /** A warning without a trace, at most once per kind per window (with the count of those left out). */
    static void warn(String kind, String message) {
        OptionalLong admitted = limiter.admit("warn " + kind);
        if (admitted.isEmpty()) {
            LOG.debug(message);
        } else {
            LOG.warn(admitted.getAsLong() == 0 ? message : message + " (" + admitted.getAsLong()
                    + " more like it since the last one logged)");
        }
    }

    /** Logs a client that closed its connection mid-request: a debug line, no trace. */
    static void clientAborted(String what, Throwable e) {
        LOG.debug("The client closed its connection during {} ({})", what, rootCause(e).toString());
    }

    /** What a client may be told of a refused request: the exception's message, when it is a sentence of Engram's. */
    static String clientText(Throwable e, String what) {
        String message = e.getMessage();
        if (presentable(message)) {
            return message;
        }
        String incident = unexpected(what + " was refused with a message not fit for a client", e);
        return "The request has a value this server could not read (incident " + incident
                + "; the server's log has the details).";
    }

    /** Whether a message is Engram's own sentence rather than Java's wording. */
    static boolean presentable(String message) {
        return message != null && !message.isBlank() && !JAVA_WORDING.matcher(message).find();
    }

    /** Whether a failure is a client that closed the connection (or stopped sending) mid-request. */
    static boolean isClientAbort(Throwable e) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> todo = new ArrayDeque<>();
        todo.add(e);
        while (!todo.isEmpty() && seen.size() < 32) {
            Throwable t = todo.poll();
            if (!seen.add(t)) {
                continue;
            }
            if (t instanceof DataReader.InsufficientDataAvailableException || t instanceof SocketException
                    || t instanceof ClosedChannelException || t instanceof EOFException || brokenConnection(t)) {
                return true;
            }
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
            Collections.addAll(todo, t.getSuppressed());
        }
        return false;
    }

    private static boolean brokenConnection(Throwable t) {
        String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
        return t instanceof IOException && (m.contains("broken pipe") || m.contains("connection reset")
                || m.contains("socket closed") || m.contains("stream closed"));
    }

    /** The kind of a failure: its class and where it was thrown. */
    static String kind(Throwable e) {
        Throwable root = rootCause(e);
        StackTraceElement[] at = root.getStackTrace();
        return e.getClass().getName() + "/" + root.getClass().getName() + (at.length > 0 ? "@" + at[0] : "");
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        for (int i = 0; i < 16 && t.getCause() != null && t.getCause() != t; i++) {
            t = t.getCause();
        }
        return t;
    }
}

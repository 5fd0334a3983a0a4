package dev.engram.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.MDC;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The {@code engram} command's SLF4J binding: every log line on standard error, WARN and above by default (the DJL
 * library's ERROR and above), as text ({@code WARN dev.engram.server.Incidents [request_id=…] - message}) or, with
 * {@code engram serve --log-format json}, one JSON object per line ({@code time}, {@code level}, {@code logger},
 * {@code thread}, {@code message}, each MDC entry such as {@code request_id}, and {@code error} with the stack trace).
 * Unlike the simple binding it replaces, its MDC works, so the server's request ids reach every line. Registered
 * through {@code META-INF/services}; {@code java.util.logging} (Helidon, Lucene) joins it in {@code engram serve} ({@link JulRoute}).
 */
public final class LogLines implements SLF4JServiceProvider {
    /** How lines are written. */
    public enum Format {
        /** One readable line (and a stack trace below it). */
        TEXT,
        /** One JSON object per line. */
        JSON
    }

    private static volatile Format format = Format.TEXT;

    private final ConcurrentHashMap<String, Logger> loggers = new ConcurrentHashMap<>();
    private final ILoggerFactory factory = name -> loggers.computeIfAbsent(name, Line::new);
    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new BasicMDCAdapter();

    /** Writes every later line in {@code to}. */
    static void format(Format to) {
        format = to;
    }

    static Format format() {
        return format;
    }

    /** The least level logged for a logger: WARN, ERROR for DJL (which warns about a GPU on every machine without one). */
    static Level threshold(String logger) {
        return logger.startsWith("ai.djl") ? Level.ERROR : Level.WARN;
    }

    /** Writes one line whatever the threshold (the serve command's start lines in JSON). */
    static void write(Level level, String logger, String message, Throwable error) {
        String line = format == Format.JSON ? json(level, logger, message, error) : text(level, logger, message, error);
        PrintStream err = System.err;
        synchronized (err) {
            err.print(line);
            err.flush();
        }
    }

    private static String text(Level level, String logger, String message, Throwable error) {
        StringBuilder b = new StringBuilder(level.name()).append(' ').append(logger);
        Map<String, String> context = MDC.getCopyOfContextMap();
        if (context != null && !context.isEmpty()) {
            b.append(' ').append(new TreeMap<>(context).toString().replace('{', '[').replace('}', ']').replace(", ", " "));
        }
        b.append(" - ").append(message).append(System.lineSeparator());
        if (error != null) {
            b.append(trace(error));
        }
        return b.toString();
    }

    private static String json(Level level, String logger, String message, Throwable error) {
        StringBuilder b = new StringBuilder("{");
        field(b, "time", Instant.now().toString());
        field(b, "level", level.name());
        field(b, "logger", logger);
        field(b, "thread", Thread.currentThread().getName());
        field(b, "message", message);
        Map<String, String> context = MDC.getCopyOfContextMap();
        if (context != null) {
            new TreeMap<>(context).forEach((k, v) -> field(b, k, v));
        }
        if (error != null) {
            field(b, "error", trace(error));
        }
        return b.append('}').append(System.lineSeparator()).toString();
    }

    private static void field(StringBuilder b, String name, String value) {
        if (b.length() > 1) {
            b.append(',');
        }
        quote(b, name);
        b.append(':');
        quote(b, value == null ? "" : value);
    }

    private static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    private static String trace(Throwable error) {
        StringWriter w = new StringWriter();
        error.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return factory;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
        // nothing to read: the thresholds are fixed and the format is set by the command
    }

    /** One named logger. */
    private static final class Line extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;
        private final int threshold;

        Line(String name) {
            this.name = name;
            this.threshold = threshold(name).toInt();
        }

        private boolean on(Level level) {
            return level.toInt() >= threshold;
        }

        @Override
        public boolean isTraceEnabled() {
            return on(Level.TRACE);
        }

        @Override
        public boolean isDebugEnabled() {
            return on(Level.DEBUG);
        }

        @Override
        public boolean isInfoEnabled() {
            return on(Level.INFO);
        }

        @Override
        public boolean isWarnEnabled() {
            return on(Level.WARN);
        }

        @Override
        public boolean isErrorEnabled() {
            return on(Level.ERROR);
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                Throwable error) {
            write(level, name, MessageFormatter.basicArrayFormat(pattern, arguments), error);
        }
    }
}

package dev.engram.server;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.simple.SimpleServiceProvider;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The server tests' SLF4J binding (chosen with {@code -Dslf4j.provider} in the module's surefire configuration):
 * the simple binding's loggers, which write to {@code System.err}, with an MDC that works (the simple binding's own
 * does nothing), so that tests can see the request id in the log's context where a log line would be written.
 */
public final class TestLogging implements SLF4JServiceProvider {
    private final SimpleServiceProvider simple = new SimpleServiceProvider();
    private final MDCAdapter mdc = new BasicMDCAdapter();

    @Override
    public ILoggerFactory getLoggerFactory() {
        return simple.getLoggerFactory();
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return simple.getMarkerFactory();
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return simple.getRequestedApiVersion();
    }

    @Override
    public void initialize() {
        simple.initialize();
    }
}

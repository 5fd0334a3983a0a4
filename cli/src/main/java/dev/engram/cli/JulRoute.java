package dev.engram.cli;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * One logging route: {@code java.util.logging} (Helidon's web server, Lucene) through SLF4J into {@link LogLines},
 * WARNING and above. The root logger's own console handler goes, so nothing is written twice and none of their INFO
 * lines reaches the console.
 */
final class JulRoute {
    /** Held: java.util.logging keeps loggers weakly, and would forget the level. */
    private static final Logger ROOT = Logger.getLogger("");

    private JulRoute() {
    }

    /** Routes java.util.logging through SLF4J (idempotent). */
    static synchronized void install() {
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
        ROOT.setLevel(Level.WARNING);
    }
}

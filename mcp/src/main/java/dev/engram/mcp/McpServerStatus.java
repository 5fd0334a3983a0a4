package dev.engram.mcp;

import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * How an MCP server is doing, as the API and logs report it.
 *
 * @param state               see {@link State}
 * @param consecutiveFailures failures since the last success
 * @param lastError           the last failure, a sentence (empty when the last call succeeded)
 * @param retryAt             when an open circuit lets a trial call through (empty unless the circuit is open)
 */
public record McpServerStatus(State state, int consecutiveFailures, Optional<String> lastError, Optional<Instant> retryAt) {
    /** The state of a server's connection and circuit. */
    public enum State {
        /** Not connected yet (it connects at its first use). */
        NOT_CONNECTED,
        /** Connected, and its last call answered. */
        CONNECTED,
        /** Its last connection or call failed (it crashed, stalled or could not be reached); the next call reconnects. */
        FAILING,
        /** Too many consecutive failures: calls are refused at once until {@code retryAt}. */
        CIRCUIT_OPEN;

        /** The state's name in the API: {@code not_connected}, {@code connected}, {@code failing}, {@code circuit_open}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}

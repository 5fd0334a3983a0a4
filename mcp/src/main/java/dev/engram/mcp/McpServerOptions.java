package dev.engram.mcp;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * How patiently Engram talks to one MCP server: how long connecting (start and initialise) and each call may take,
 * after how many consecutive failures its circuit opens (calls are refused at once), for how long, and whether its
 * {@code readOnlyHint}s are believed.
 *
 * @param connectTimeout  the most a connection (start, initialise, list tools) may take
 * @param callTimeout     the most one tool call may take; a call that takes longer is abandoned and counts as a failure
 * @param failuresToOpen  consecutive failures (timeouts, crashes, refused connections) that open the circuit
 * @param coolDown        how long an open circuit refuses calls before one trial call is let through (half-open)
 * @param clock           the time the circuit is judged by
 * @param trusted         whether the server's {@code readOnlyHint}s let its tools run without approval
 * @param addressAllowed  which addresses an HTTP server's host may resolve to; checked at every connection, every
 *                        address must pass (a server's egress rule: public addresses only, say)
 */
public record McpServerOptions(Duration connectTimeout, Duration callTimeout, int failuresToOpen, Duration coolDown,
        Clock clock, boolean trusted, Predicate<InetAddress> addressAllowed) {
    /**
     * @throws IllegalArgumentException if a duration is not positive or {@code failuresToOpen} is below 1
     */
    public McpServerOptions {
        positive(connectTimeout, "connect timeout");
        positive(callTimeout, "call timeout");
        positive(coolDown, "circuit cool-down");
        Objects.requireNonNull(clock, "clock must not be null");
        Objects.requireNonNull(addressAllowed, "address check must not be null");
        if (failuresToOpen < 1) {
            throw new IllegalArgumentException("failures to open an MCP server's circuit must be at least 1, got "
                    + failuresToOpen);
        }
    }

    /**
     * Connect within 15 s, calls within 60 s, the circuit opens after 3 consecutive failures for 30 s; untrusted; any
     * address.
     */
    public static McpServerOptions defaults() {
        return new McpServerOptions(Duration.ofSeconds(15), Duration.ofSeconds(60), 3, Duration.ofSeconds(30),
                Clock.systemUTC(), false, address -> true);
    }

    public McpServerOptions withConnectTimeout(Duration timeout) {
        return new McpServerOptions(timeout, callTimeout, failuresToOpen, coolDown, clock, trusted, addressAllowed);
    }

    public McpServerOptions withCallTimeout(Duration timeout) {
        return new McpServerOptions(connectTimeout, timeout, failuresToOpen, coolDown, clock, trusted, addressAllowed);
    }

    /** The circuit opens after {@code failures} consecutive failures and stays open for {@code coolDown}. */
    public McpServerOptions withCircuit(int failures, Duration coolDownTime) {
        return new McpServerOptions(connectTimeout, callTimeout, failures, coolDownTime, clock, trusted, addressAllowed);
    }

    public McpServerOptions withClock(Clock newClock) {
        return new McpServerOptions(connectTimeout, callTimeout, failuresToOpen, coolDown, newClock, trusted, addressAllowed);
    }

    /** With {@code readOnlyHint}s believed (the user vouches for this server). */
    public McpServerOptions asTrusted(boolean trust) {
        return new McpServerOptions(connectTimeout, callTimeout, failuresToOpen, coolDown, clock, trust, addressAllowed);
    }

    /** With HTTP servers reached only when every address their host resolves to passes {@code check}. */
    public McpServerOptions withAddressCheck(Predicate<InetAddress> check) {
        return new McpServerOptions(connectTimeout, callTimeout, failuresToOpen, coolDown, clock, trusted, check);
    }

    private static void positive(Duration d, String what) {
        Objects.requireNonNull(d, what + " must not be null");
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException("an MCP server's " + what + " must be positive, got " + d);
        }
    }
}

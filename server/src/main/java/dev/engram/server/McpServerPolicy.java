package dev.engram.server;

import dev.engram.mcp.McpServerOptions;
import java.util.Objects;
import java.util.Set;

/**
 * What the operator lets API users do with MCP servers. A stdio server is a program the server starts, so only an admin
 * key registers one, unless its program is one the operator named in {@code stdioPrograms} (then a user key may too,
 * with any arguments: name only programs whose arguments cannot make them run other code). An HTTP server of a user key
 * is reached only at public addresses (the rule the web tools follow), unless {@code privateAddresses}. Every server
 * gets the timeouts and circuit of {@code options}.
 *
 * @param stdioPrograms    programs a user key may register as stdio servers, exactly as they are written in the command
 * @param privateAddresses whether a user key's HTTP servers may be at loopback, private and other non-public addresses
 * @param options          connect and call timeouts and the circuit of every server
 */
public record McpServerPolicy(Set<String> stdioPrograms, boolean privateAddresses, McpServerOptions options) {
    public McpServerPolicy {
        stdioPrograms = Set.copyOf(stdioPrograms);
        Objects.requireNonNull(options, "MCP server options must not be null");
    }

    /** Stdio for admin keys only, public addresses only, {@link McpServerOptions#defaults()}. */
    public static McpServerPolicy defaults() {
        return new McpServerPolicy(Set.of(), false, McpServerOptions.defaults());
    }

    /** This policy letting user keys register stdio servers of these programs. */
    public McpServerPolicy allowingPrograms(Set<String> programs) {
        return new McpServerPolicy(programs, privateAddresses, options);
    }

    /** This policy letting user keys' HTTP servers be at non-public addresses. */
    public McpServerPolicy allowingPrivateAddresses(boolean allow) {
        return new McpServerPolicy(stdioPrograms, allow, options);
    }

    /** This policy with other timeouts and circuit. */
    public McpServerPolicy withOptions(McpServerOptions newOptions) {
        return new McpServerPolicy(stdioPrograms, privateAddresses, newOptions);
    }
}

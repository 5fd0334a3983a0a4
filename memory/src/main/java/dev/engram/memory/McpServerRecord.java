package dev.engram.memory;

import java.time.Instant;

/**
 * An MCP server a user registered (Letta's {@code mcp_servers}): its name, its transport, where it is reached, its
 * secrets (environment values, headers, a token), which the store keeps only sealed, and the tools it offered when it
 * was last listed.
 *
 * @param id            {@code mcp_server-<uuid>}
 * @param userId        the user whose server it is
 * @param name          a name unique among the user's servers
 * @param type          the transport, Letta's {@code mcp_server_type}: {@code stdio}, {@code sse}, {@code streamable_http}
 * @param config        where the server is, as JSON without secrets (command and args, or the URL); opaque to the store
 * @param sealedSecrets the server's secrets as the server sealed them (opaque to the store); empty when it has none
 * @param tools         the tools the server listed last, as JSON (an array); {@code []} before it was listed
 * @param createdAt     when it was registered
 * @param updatedAt     when it was last changed
 */
public record McpServerRecord(String id, String userId, String name, String type, String config, String sealedSecrets,
        String tools, Instant createdAt, Instant updatedAt) {
    public McpServerRecord {
        Checks.id(id, "MCP server id");
        Checks.id(userId, "user id");
        Checks.id(name, "MCP server name");
        Checks.id(type, "MCP server type");
        Checks.notNull(config, "MCP server config");
        Checks.notNull(sealedSecrets, "sealed secrets");
        Checks.notNull(tools, "MCP server tools");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }

    /** This server with another name, transport, config and secrets, changed at {@code at}. */
    public McpServerRecord with(String newName, String newType, String newConfig, String newSealedSecrets, Instant at) {
        return new McpServerRecord(id, userId, newName, newType, newConfig, newSealedSecrets, tools, createdAt, at);
    }

    /** This server with the tools it listed now. */
    public McpServerRecord withTools(String newTools, Instant at) {
        return new McpServerRecord(id, userId, name, type, config, sealedSecrets, newTools, createdAt, at);
    }
}

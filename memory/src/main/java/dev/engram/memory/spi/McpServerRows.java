package dev.engram.memory.spi;

import dev.engram.memory.McpServerRecord;
import java.util.List;
import java.util.Optional;

/**
 * The MCP servers each user registered, in a {@link MemoryBackend}. Optional: the defaults throw.
 */
public interface McpServerRows {
    /** Stores a user's MCP server, replacing the one of its id. Optional, like providers: the defaults throw. */
    default void putMcpServer(McpServerRecord server) {
        throw noMcpServers();
    }

    /** The MCP server of that id, whoever's it is. */
    default Optional<McpServerRecord> mcpServer(String id) {
        throw noMcpServers();
    }

    /** Every user's MCP servers, oldest first. */
    default List<McpServerRecord> listMcpServers() {
        throw noMcpServers();
    }

    /** Removes an MCP server; returns whether there was one. */
    default boolean deleteMcpServer(String id) {
        throw noMcpServers();
    }

    private static UnsupportedOperationException noMcpServers() {
        return new UnsupportedOperationException("this memory backend keeps no MCP servers (it does not implement the "
                + "MCP server methods of Rows)");
    }
}

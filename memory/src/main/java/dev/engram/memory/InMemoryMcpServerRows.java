package dev.engram.memory;

import dev.engram.memory.spi.McpServerRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The MCP servers of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one
 * lock, and record each change in its one undo log.
 */
interface InMemoryMcpServerRows extends McpServerRows {
    /** Every MCP server by id. */
    Map<String, McpServerRecord> mcpServerTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putMcpServer(McpServerRecord server) {
        undo().put(mcpServerTable(), server.id(), server);
    }

    @Override
    default Optional<McpServerRecord> mcpServer(String id) {
        return Optional.ofNullable(mcpServerTable().get(id));
    }

    @Override
    default List<McpServerRecord> listMcpServers() {
        return mcpServerTable().values().stream().sorted(Comparator.comparing(McpServerRecord::createdAt)
                .thenComparing(McpServerRecord::id)).toList();
    }

    @Override
    default boolean deleteMcpServer(String id) {
        return undo().remove(mcpServerTable(), id);
    }
}

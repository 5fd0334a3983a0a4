package dev.engram.memory;

import dev.engram.memory.spi.Rows;
import java.util.List;
import java.util.Optional;

/**
 * Each user's MCP servers ({@link McpServerRecord}), their secrets sealed. Backends keep them through the optional MCP
 * server methods of {@link dev.engram.memory.spi.Rows}; over a backend without them every method here throws
 * {@link UnsupportedOperationException}. A user sees only their own servers: another user's id is not found.
 */
public final class McpServerStore {
    private final StoreCore store;

    McpServerStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Registers a server of {@code userId}.
     *
     * @throws DuplicateException       if the user has a server of that name (nothing is stored)
     * @throws IllegalArgumentException if a field is blank
     */
    public McpServerRecord create(String userId, String name, String type, String config, String sealedSecrets) {
        Checks.id(userId, "user id");
        return store.write(rows -> {
            duplicate(of(rows, userId), name, "");
            McpServerRecord s = new McpServerRecord(Ids.next("mcp_server"), userId, name, type, config, sealedSecrets, "[]",
                    store.now(), store.now());
            rows.putMcpServer(s);
            return s;
        });
    }

    /** The user's server of that id. */
    public Optional<McpServerRecord> get(String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "MCP server id");
        return store.read(rows -> rows.mcpServer(id).filter(s -> s.userId().equals(userId)));
    }

    /** The user's servers, oldest first. */
    public List<McpServerRecord> list(String userId) {
        Checks.notNull(userId, "user id");
        return store.read(rows -> of(rows, userId));
    }

    /** Every user's servers, oldest first (for a server starting up). */
    public List<McpServerRecord> listAll() {
        return store.read(Rows::listMcpServers);
    }

    /**
     * Changes a server's name, transport, config and sealed secrets.
     *
     * @throws NotFoundException  if the user has no server of that id
     * @throws DuplicateException if the new name is another of the user's servers' (nothing changes)
     */
    public McpServerRecord update(String userId, String id, String name, String type, String config, String sealedSecrets) {
        return store.write(rows -> {
            McpServerRecord s = owned(rows, userId, id);
            duplicate(of(rows, userId), name, id);
            McpServerRecord changed = s.with(name, type, config, sealedSecrets, store.now());
            rows.putMcpServer(changed);
            return changed;
        });
    }

    /**
     * Keeps the tools the server listed now ({@code tools}, a JSON array).
     *
     * @throws NotFoundException if the user has no server of that id
     */
    public McpServerRecord rememberTools(String userId, String id, String tools) {
        Checks.notNull(tools, "MCP server tools");
        return store.write(rows -> {
            McpServerRecord changed = owned(rows, userId, id).withTools(tools, store.now());
            rows.putMcpServer(changed);
            return changed;
        });
    }

    /** Removes the user's server; returns whether there was one. */
    public boolean delete(String userId, String id) {
        return store.write(rows -> rows.mcpServer(id).filter(s -> s.userId().equals(userId)).isPresent()
                && rows.deleteMcpServer(id));
    }

    private static List<McpServerRecord> of(Rows rows, String userId) {
        return rows.listMcpServers().stream().filter(s -> s.userId().equals(userId)).toList();
    }

    private static McpServerRecord owned(Rows rows, String userId, String id) {
        return rows.mcpServer(id).filter(s -> s.userId().equals(userId))
                .orElseThrow(() -> new NotFoundException("MCP server '" + id + "' not found."));
    }

    private static void duplicate(List<McpServerRecord> servers, String name, String exceptId) {
        if (servers.stream().anyMatch(s -> s.name().equals(name) && !s.id().equals(exceptId))) {
            throw new DuplicateException("An MCP server named '" + name + "' exists; choose another name, or change that "
                    + "one with PATCH.");
        }
    }
}

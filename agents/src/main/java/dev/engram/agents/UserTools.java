package dev.engram.agents;

import dev.engram.framework.DynamicTool;
import java.util.List;
import java.util.Optional;

/**
 * Tools that belong to one user, such as the tools of the MCP servers a user registered with a server: an agent of that
 * user may name them, an agent of another user cannot see them. The runtime's own tools win over a user's tool of the
 * same name. Give a runtime its source with {@link AgentRuntime.Builder#userTools}; call
 * {@link AgentRuntime#retool(String)} when a user's tools change.
 */
public interface UserTools {
    /** The user's tool of that name. */
    Optional<DynamicTool> find(String userId, String name);

    /** Every tool of the user, sorted by name. */
    List<DynamicTool> list(String userId);

    /** No user has tools of their own. */
    static UserTools none() {
        return new UserTools() {
            @Override
            public Optional<DynamicTool> find(String userId, String name) {
                return Optional.empty();
            }

            @Override
            public List<DynamicTool> list(String userId) {
                return List.of();
            }
        };
    }
}

package dev.engram.agents;

import dev.engram.memory.MemoryStore;
import java.util.ArrayList;
import java.util.List;

/**
 * Attaching a folder to an agent and detaching it, with the file tools that go with folders, as Letta does: the first
 * folder brings {@link LettaTools#FILE_TOOLS}, the last one detached takes them away again (except a tool a rule of the
 * agent names, which stays).
 */
final class AgentFolderTools {
    private AgentFolderTools() {
    }

    static Agent attach(AgentRegistry agents, MemoryStore store, String userId, String agentId, String folderId) {
        Agent agent = agents.agent(userId, agentId);
        store.folders().agents().attach(agent.scope(), folderId,
                agent.definition().fileLimits());
        List<String> tools = new ArrayList<>(agent.definition().tools());
        boolean added = false;
        for (String name : LettaTools.FILE_TOOLS) {
            if (!tools.contains(name)) {
                tools.add(name);
                added = true;
            }
        }
        return added ? agents.changeTools(userId, agentId, tools) : agent;
    }

    static Agent detach(AgentRegistry agents, MemoryStore store, String userId, String agentId, String folderId) {
        Agent agent = agents.agent(userId, agentId);
        store.folders().agents().detach(agent.scope(), folderId);
        if (!store.folders().agents().attached(agent.scope()).isEmpty()) {
            return agent;
        }
        List<String> named = agent.definition().toolRules().stream()
                .flatMap(r -> ToolRules.toJson(r).findValuesAsString("tool_name").stream()).toList();
        List<String> tools = new ArrayList<>(agent.definition().tools());
        boolean removed = tools.removeIf(t -> LettaTools.FILE_TOOLS.contains(t) && !named.contains(t));
        return removed ? agents.changeTools(userId, agentId, tools) : agent;
    }
}

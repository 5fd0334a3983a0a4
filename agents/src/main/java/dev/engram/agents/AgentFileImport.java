package dev.engram.agents;

import java.util.List;

/**
 * What importing a Letta agent file did: the agents it created (in file order) and what it changed to
 * make the file fit (a block limit raised to hold its value, a tool without an implementation here).
 */
public record AgentFileImport(List<Agent> agents, List<String> warnings) {
    public AgentFileImport {
        agents = List.copyOf(agents);
        warnings = List.copyOf(warnings);
    }
}

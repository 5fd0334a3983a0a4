package dev.engram.agents;

import java.util.List;

/**
 * What importing an agent file did: the agents it created (in file order), what it changed to make the file fit
 * (a block limit raised to hold its value, a tool without an implementation here), and what the file asked for
 * that it was not given ({@link DroppedGrant}: an import only ever tightens policy).
 */
public record AgentFileImport(List<Agent> agents, List<String> warnings, List<DroppedGrant> dropped) {
    public AgentFileImport {
        agents = List.copyOf(agents);
        warnings = List.copyOf(warnings);
        dropped = List.copyOf(dropped);
    }

    /** An import that dropped nothing. */
    public AgentFileImport(List<Agent> agents, List<String> warnings) {
        this(agents, warnings, List.of());
    }
}

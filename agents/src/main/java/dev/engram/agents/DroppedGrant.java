package dev.engram.agents;

import java.util.Objects;

/**
 * Something an imported agent file asked for that it was not given, because an import never grants more than the
 * importer's own defaults and the operator's configuration: a looser approval mode, a step cap above the runtime's,
 * a workspace, shell or web access of the agent's own, another agent's memory, an owner.
 *
 * @param agent  the name of the agent that asked
 * @param field  where the file asked, e.g. {@code agents[0].metadata.engram.approval_mode}
 * @param asked  what it asked for
 * @param reason what the agent has instead, and why
 */
public record DroppedGrant(String agent, String field, String asked, String reason) {
    public DroppedGrant {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(asked, "asked");
        Objects.requireNonNull(reason, "reason");
    }

    /** One line for a person: the agent, the field, what it asked and what it got. */
    @Override
    public String toString() {
        return "agent '" + agent + "': " + field + " " + asked + " was dropped: " + reason;
    }
}

package dev.engram.agents;

/** No agent with that id or name exists for the user. */
public class AgentNotFoundException extends AgentException {
    private static final long serialVersionUID = 1L;

    public AgentNotFoundException(String message) {
        super(message);
    }
}

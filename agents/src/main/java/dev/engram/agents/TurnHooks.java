package dev.engram.agents;

/** What the runtime does around an agent's turns for a user message (the sleep-time companion's cue). */
interface TurnHooks {
    /** Before the agent takes a message: nothing of the runtime's may still be working on its memory. */
    void beforeTurn(AgentDefinition agent);

    /** After the agent answered a message. */
    void afterTurn(AgentDefinition agent);

    TurnHooks NONE = new TurnHooks() {
        @Override
        public void beforeTurn(AgentDefinition agent) {
        }

        @Override
        public void afterTurn(AgentDefinition agent) {
        }
    };
}

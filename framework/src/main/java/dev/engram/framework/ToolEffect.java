package dev.engram.framework;

/**
 * What a successful tool call did beyond returning its output, as the tool itself says in its
 * {@link ToolOutput} (in the spirit of Spring AI's {@code returnDirect} and LangChain4j's
 * {@code returnBehavior}). An agent loop decides from these whether to yield, go on or stop; it never
 * guesses them from tool names or argument text.
 */
public enum ToolEffect {
    /**
     * The call delivered a message to the user: {@link ToolResult#userMessage()} is what the user reads. A loop that
     * yields on a message (MemGPT's) ends the turn.
     */
    MESSAGE_TO_USER,
    /** Another agent (a peer or a subagent) answered the call: the calling agent goes on to use the answer. */
    AGENT_ANSWERED,
    /** The call changed the agent's memory (its blocks, archival memory or notes): the agent goes on. */
    MEMORY_EDITED
}

package dev.engram.agents;

/** Why an agent stopped working on a message and returned control. */
public enum AgentStopReason {
    /** It called {@code send_message} to its user (or to whoever sent the message): the normal end of a turn. */
    YIELDED,
    /** The model answered with text and no tool call; the text is the reply. */
    END_TURN,
    /** A tool with a terminal rule ({@link ToolRule.Terminal}) ran. */
    TERMINAL_TOOL,
    /** The last tool calls neither asked for a heartbeat, failed, nor edited memory, so there was nothing to continue for. */
    NO_HEARTBEAT,
    /** The step cap of the agent's definition was reached. */
    STEP_CAP,
    /** The model repeated the same call with the same arguments too often; the loop breaker stopped it. */
    LOOP_BREAKER,
    /** Too many steps in a row had only failed tool calls; the self-correction budget ran out. */
    TOO_MANY_ERRORS,
    /** {@link Agent#cancel()} stopped the step. */
    CANCELLED
}

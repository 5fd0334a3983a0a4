package dev.engram.agents;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Which loop an agent runs, named as Letta names its agent types ({@code agent_type} in Letta's API and agent
 * files). Engram runs the types Letta runs with one of its two loops (see {@link Loop}); Letta's other types
 * ({@link #NOT_RUN}) are refused by {@link #fromLetta} with a message listing these.
 *
 * <p>Letta itself runs {@code letta_v1_agent} and {@code sleeptime_agent} with its newer loop, and every other
 * type with its heartbeat loop; Engram does the same.
 */
public enum AgentType {
    /** Letta's default since its v1 loop: continues after every tool call until the model answers without one. */
    LETTA_V1_AGENT(Loop.UNTIL_REPLY),
    /** MemGPT's second generation: heartbeats and {@code send_message}, the v2 memory tools. */
    MEMGPT_V2_AGENT(Loop.HEARTBEATS),
    /** The original MemGPT agent: heartbeats and {@code send_message}. */
    MEMGPT_AGENT(Loop.HEARTBEATS),
    /** Letta's sleep-time agent, which edits another agent's memory; Letta runs it with the v1 loop. */
    SLEEPTIME_AGENT(Loop.UNTIL_REPLY),
    /** Letta's ReAct agent (no default tools); Letta runs it with the heartbeat loop. */
    REACT_AGENT(Loop.HEARTBEATS);

    /** Letta's agent types that Engram has no loop for: {@code workflow_agent}, {@code split_thread_agent} and the voice agents. */
    public static final List<String> NOT_RUN = List.of("workflow_agent", "split_thread_agent", "voice_convo_agent",
            "voice_sleeptime_agent");

    /** How an agent's turn goes on after a tool call, and what its reply is. */
    public enum Loop {
        /**
         * After a tool call the turn continues only when the call asked for a heartbeat ({@code request_heartbeat});
         * the user is shown what the agent sends with {@code send_message}.
         */
        HEARTBEATS,
        /**
         * After every tool call the turn continues, until the model answers without calling a tool; that answer is
         * the reply. The step cap, the repeated-call breaker and tool rules still end a turn early.
         */
        UNTIL_REPLY
    }

    private final Loop loop;

    AgentType(Loop loop) {
        this.loop = loop;
    }

    /** The loop an agent of this type runs. */
    public Loop loop() {
        return loop;
    }

    /** The name Letta gives this type, e.g. {@code letta_v1_agent}. */
    public String lettaName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The type Letta calls {@code name} (in any case).
     *
     * @throws IllegalArgumentException if Letta has no such type, or it is one Engram does not run; the message lists
     *                                  the types Engram runs
     */
    public static AgentType fromLetta(String name) {
        for (AgentType t : values()) {
            if (t.lettaName().equalsIgnoreCase(name)) {
                return t;
            }
        }
        String runs = Arrays.stream(values()).map(AgentType::lettaName).collect(Collectors.joining(", "));
        if (name != null && NOT_RUN.contains(name.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("agent type '" + name + "' is a Letta agent type Engram does not run; "
                    + "Engram runs " + runs);
        }
        throw new IllegalArgumentException("agent type '" + name + "' is not a Letta agent type; Engram runs " + runs);
    }
}

package dev.engram.agents;

import dev.engram.framework.CancellationToken;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolResult;
import dev.engram.memory.ConversationMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One message being worked on: where it came from, the state the loop keeps while answering it (calls
 * seen by the loop breaker, the tool-rule solver), its stream listener if any, and what the agent said to
 * its user so far (written only by the agent's own loop, from its successful {@code send_message} calls).
 */
final class Turn {
    private static final Logger LOG = LoggerFactory.getLogger(Turn.class);

    final String session;
    /** The agents waiting on this turn, outermost first, ending with this agent. */
    final List<String> chain;
    final Optional<String> fromAgentId;
    final CancellationToken token = CancellationToken.create();
    /** Identical calls seen while answering this message, for the loop breaker. */
    final Map<String, Integer> seenCalls = new HashMap<>();
    final ToolRuleSolver rules;
    private final AgentStreamListener listener;
    /** The tools the turn's client runs itself, if it brought any ({@link ClientTools}). */
    final Optional<ClientTools> client;
    private boolean listenerFailed;
    private final List<String> replies = new ArrayList<>();
    /** Calls the programs of this turn's {@code execute_code} calls made, not yet recorded ({@link CodeMode}). */
    private final List<ProgramCall> programCalls = new ArrayList<>();

    /** A call a program made through a stub, and its result. */
    record ProgramCall(ToolCall call, ToolResult result) {
    }
    volatile Thread thread;
    /** What the loop notes of the step it runs ({@link AgentEvent.StepTaken}); set when the loop starts. */
    StepRecord record;
    /** Told of the messages the turn stores in its agent's conversation ({@link InContextMessages#wrote}); set when the loop starts. */
    Consumer<List<ConversationMessage>> wrote = stored -> { };
    /** Whether the context was read at the turn's start and only the turn's own messages were stored since. */
    boolean fresh;

    Turn(String session, List<String> chain, Optional<String> fromAgentId, List<ToolRule> rules,
            AgentStreamListener listener) {
        this(session, chain, fromAgentId, rules, listener, Optional.empty());
    }

    Turn(String session, List<String> chain, Optional<String> fromAgentId, List<ToolRule> rules,
            AgentStreamListener listener, Optional<ClientTools> client) {
        this.client = client;
        this.session = Objects.requireNonNull(session);
        this.chain = List.copyOf(chain);
        this.fromAgentId = fromAgentId;
        this.rules = new ToolRuleSolver(rules);
        this.listener = listener;
    }

    /** Whether someone listens to this turn's stream (then the model is asked to stream). */
    boolean streaming() {
        return listener != null;
    }

    /** Delivers a stream event; a listener that throws cancels the turn and hears nothing more. */
    void emit(AgentStreamEvent event) {
        if (listener == null || listenerFailed) {
            return;
        }
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            listenerFailed = true;
            LOG.warn("The stream listener failed on {}; the turn is cancelled", event.getClass().getSimpleName(), e);
            cancel();
        }
    }

    /**
     * Cancels the turn: its token, and the thread running it, unless that is the calling thread (a
     * listener cancelling from inside the stream), which sees the token at the next event.
     */
    void cancel() {
        token.cancel();
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            t.interrupt();
        }
    }

    /** Keeps a call a program made, for the tool step to record. */
    synchronized void programCall(ToolCall call, ToolResult result) {
        programCalls.add(new ProgramCall(call, result));
    }

    /** The program calls kept since the last time, in the order they were made. */
    synchronized List<ProgramCall> takeProgramCalls() {
        List<ProgramCall> out = List.copyOf(programCalls);
        programCalls.clear();
        return out;
    }

    void reply(String text) {
        replies.add(text);
    }

    AgentResponse response(AgentStopReason reason, int steps, List<ToolResult> results, long in, long out,
            String finalText) {
        String reply = replies.isEmpty() ? finalText : String.join("\n\n", replies);
        return new AgentResponse(reply.isBlank() ? Optional.empty() : Optional.of(reply), reason, steps, results, in, out);
    }
}

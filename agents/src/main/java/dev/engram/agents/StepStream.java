package dev.engram.agents;

import dev.engram.framework.model.ModelCancelledException;
import dev.engram.framework.model.StreamListener;
import dev.engram.tools.BuiltinTools;
import java.util.HashMap;
import java.util.Map;

/**
 * Passes one step's model stream to the turn's listener as {@link AgentStreamEvent}s, decoding the reply
 * a {@code send_message} call writes as it streams. After every event it checks the turn's token, so a
 * cancel (from the listener itself or another thread) stops the model call at the next fragment.
 */
final class StepStream implements StreamListener {
    private final Turn turn;
    private final int step;
    private final Map<Integer, ReplyDecoder> replies = new HashMap<>();

    StepStream(Turn turn, int step) {
        this.turn = turn;
        this.step = step;
    }

    @Override
    public void onText(String delta) {
        emit(new AgentStreamEvent.Text(step, delta));
    }

    @Override
    public void onReasoning(String delta) {
        emit(new AgentStreamEvent.Reasoning(step, delta));
    }

    @Override
    public void onToolCallDelta(int index, String id, String name, String argumentsDelta) {
        if (BuiltinTools.SEND_MESSAGE.equals(name)) {
            replies.put(index, new ReplyDecoder());
        }
        emit(new AgentStreamEvent.ToolCallDelta(step, index, id, name, argumentsDelta));
        ReplyDecoder decoder = replies.get(index);
        if (decoder != null && !argumentsDelta.isEmpty()) {
            String text = decoder.feed(argumentsDelta);
            if (!text.isEmpty()) {
                emit(new AgentStreamEvent.ReplyDelta(step, index, text));
            }
        }
    }

    /** Delivers a fragment unless the turn was cancelled, and stops the model call once it is. */
    private void emit(AgentStreamEvent event) {
        checkCancelled();
        turn.emit(event);
        checkCancelled();
    }

    private void checkCancelled() {
        if (turn.token.isCancelled()) {
            throw new ModelCancelledException("the turn was cancelled while the model was streaming");
        }
    }
}

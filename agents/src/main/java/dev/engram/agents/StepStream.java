package dev.engram.agents;

import dev.engram.framework.model.ModelCancelledException;
import dev.engram.framework.model.StreamListener;
import java.util.HashMap;
import java.util.Map;

/**
 * Passes one step's model stream to the turn's listener as {@link AgentStreamEvent}s, decoding the message a
 * call writes for the user as it streams (from the argument its tool names in
 * {@link dev.engram.framework.DynamicTool#userMessageArgument()}). After every event it checks the turn's token, so a
 * cancel (from the listener itself or another thread) stops the model call at the next fragment.
 */
final class StepStream implements StreamListener {
    private final Turn turn;
    private final int step;
    private final Map<String, String> messageArguments;
    private final Map<Integer, ReplyDecoder> replies = new HashMap<>();

    /** @param messageArguments tool name to the argument its user message is in, for the tools that have one */
    StepStream(Turn turn, int step, Map<String, String> messageArguments) {
        this.turn = turn;
        this.step = step;
        this.messageArguments = messageArguments;
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
        String argument = messageArguments.get(name);
        if (argument != null) {
            replies.put(index, new ReplyDecoder(argument));
            emit(new AgentStreamEvent.ReplyDelta(step, index, "")); // announces the call before its first fragment
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

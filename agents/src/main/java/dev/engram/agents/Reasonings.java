package dev.engram.agents;

import dev.engram.framework.model.Reasoning;
import dev.engram.memory.MessageReasoning;

/** The model's reasoning between the model's type (framework) and the stored one (memory), which know nothing of each other. */
final class Reasonings {
    private Reasonings() {
    }

    /** As stored with the assistant message of a step. */
    static MessageReasoning stored(Reasoning r) {
        return r.isEmpty() ? MessageReasoning.NONE : new MessageReasoning(r.text(), r.signature(), r.redacted());
    }

    /** As put back into a prompt, where the model's adapter sends it on when its provider needs it. */
    static Reasoning sent(MessageReasoning r) {
        return r.isEmpty() ? Reasoning.NONE : new Reasoning(r.text(), r.signature(), r.redacted());
    }
}

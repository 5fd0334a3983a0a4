package dev.engram.agents;

import dev.engram.framework.ApprovalDecision;
import java.util.Objects;

/** The client's answer to a {@link ClientCall}: the result of a call it ran, or its decision on a call to approve. */
public sealed interface ClientAnswer {
    /**
     * The client ran the call.
     *
     * @param content what the call returned, for the model
     * @param failed  whether the call failed (Letta's {@code status: "error"})
     */
    record Ran(String content, boolean failed) implements ClientAnswer {
        public Ran {
            Objects.requireNonNull(content, "content");
        }
    }

    /** The client approved or denied the call; a denied call of a client tool is answered as not run. */
    record Decided(ApprovalDecision decision) implements ClientAnswer {
        public Decided {
            Objects.requireNonNull(decision, "decision");
        }
    }
}

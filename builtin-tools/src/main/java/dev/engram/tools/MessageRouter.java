package dev.engram.tools;

import java.util.Optional;

/**
 * Delivers what an agent says with {@code send_message}: to its user, or to another agent of the same
 * user. The agent runtime implements it; a refusal (unknown agent, another user's agent, a depth
 * limit) is a {@link dev.engram.framework.ToolException} whose message the model reads.
 */
@FunctionalInterface
public interface MessageRouter {
    /**
     * Delivers {@code message}.
     *
     * @return the recipient's reply when it answered at once (another agent that was waited for), or
     *         empty (the user, or a recipient that answers later)
     */
    Optional<String> deliver(OutgoingMessage message);

    /** A router that hands every message to {@code sink} and never has a reply: for tests and simple hosts. */
    static MessageRouter to(java.util.function.Consumer<OutgoingMessage> sink) {
        java.util.Objects.requireNonNull(sink, "sink must not be null");
        return message -> {
            sink.accept(message);
            return Optional.empty();
        };
    }
}

package dev.engram.tools;

import java.util.Objects;
import java.util.Optional;

/**
 * A message an agent sends.
 *
 * @param userId      the user the sending agent serves
 * @param fromAgentId the sender
 * @param sessionId   the session it was sent in (empty if none)
 * @param toAgentId   another agent of the same user, or empty for the user
 * @param text        the message
 */
public record OutgoingMessage(String userId, String fromAgentId, String sessionId, Optional<String> toAgentId, String text) {
    public OutgoingMessage {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(fromAgentId, "fromAgentId");
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(toAgentId, "toAgentId");
        Objects.requireNonNull(text, "text");
    }
}

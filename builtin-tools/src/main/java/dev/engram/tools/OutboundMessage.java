package dev.engram.tools;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One message the {@code message} tool hands to an {@link OutboundChannel}.
 *
 * @param userId  the user whose agent sends it
 * @param agentId the agent that sends it
 * @param text    what the agent wrote
 * @param links   links to files or canvas artefacts the agent attached (workspace paths, {@code /canvas/...} paths or URLs)
 * @param at      when the agent sent it
 */
public record OutboundMessage(String userId, String agentId, String text, List<String> links, Instant at) {
    public OutboundMessage {
        Objects.requireNonNull(userId, "user id must not be null");
        Objects.requireNonNull(agentId, "agent id must not be null");
        Objects.requireNonNull(text, "text must not be null");
        links = List.copyOf(Objects.requireNonNull(links, "links must not be null"));
        Objects.requireNonNull(at, "at must not be null");
    }
}

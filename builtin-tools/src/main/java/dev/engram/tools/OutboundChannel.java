package dev.engram.tools;

import java.net.URI;
import java.time.Duration;

/**
 * Where the {@code message} tool sends what an agent wants to tell someone outside the conversation: a chat room, a
 * pager, an operator's webhook. An implementation has a name (the model picks a channel by it) and sends one
 * {@link OutboundMessage} at a time, answering with a {@link SendResult}; it should not throw (a failure is a result
 * that says what went wrong). Register channels with {@code AgentRuntime.Builder.outboundChannel(...)}; the operator
 * chooses them and their addresses, never the model.
 *
 * <p>This is not {@code send_message}, which answers the user in the conversation (or another agent): a channel
 * carries a message out of it.
 */
public interface OutboundChannel {
    /** The channel's name, as the model names it: letters, digits, dashes or underscores. */
    String name();

    /** Sends one message; never throws for a delivery failure, which is a {@link SendResult#failed failed} result. */
    SendResult send(OutboundMessage message);

    /**
     * A channel that POSTs each message as JSON to {@code url} (http or https), with a 10 s timeout per attempt, up to 3
     * attempts when the server answers 5xx or cannot be reached, and no redirects followed.
     *
     * @throws IllegalArgumentException if the URL is not an absolute http(s) URL, or the name is not valid
     */
    static OutboundChannel webhook(String name, URI url) {
        return webhook(name, url, Duration.ofSeconds(10), 3);
    }

    /**
     * {@link #webhook(String, URI)} with your own timeout per attempt and number of attempts (1 to 10).
     *
     * @throws IllegalArgumentException if a setting is out of range
     */
    static OutboundChannel webhook(String name, URI url, Duration timeout, int attempts) {
        return new WebhookChannel(name, url, timeout, attempts);
    }
}

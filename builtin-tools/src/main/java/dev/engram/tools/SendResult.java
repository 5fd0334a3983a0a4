package dev.engram.tools;

import java.util.Objects;

/**
 * What an {@link OutboundChannel} says about one send.
 *
 * @param delivered whether the channel delivered the message
 * @param detail    what happened, for the model and the log (e.g. "HTTP 200 after 2 attempts"); never the message itself
 */
public record SendResult(boolean delivered, String detail) {
    public SendResult {
        Objects.requireNonNull(detail, "detail must not be null");
    }

    /** A delivered message. */
    public static SendResult delivered(String detail) {
        return new SendResult(true, detail);
    }

    /** A message the channel could not deliver, and why. */
    public static SendResult failed(String detail) {
        return new SendResult(false, detail);
    }
}

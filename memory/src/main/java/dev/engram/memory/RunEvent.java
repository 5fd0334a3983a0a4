package dev.engram.memory;

/**
 * One event of a streamed {@link Run}, as its server sent it: Server-Sent Events' event name and data.
 *
 * @param seq   its sequence number in the run, from 1 with no gaps (Letta's {@code seq_id})
 * @param event the SSE event name ({@code error}), or empty for an unnamed event
 * @param data  the event's data, one line (a JSON message of Letta's union)
 */
public record RunEvent(long seq, String event, String data) {
    public RunEvent {
        if (seq < 1) {
            throw new IllegalArgumentException("a run event's sequence number is 1 or more, got " + seq);
        }
        Checks.unicode(event, "event name");
        Checks.unicode(data, "event data");
        if (data.indexOf('\n') >= 0 || event.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a run event's name and data are one line each");
        }
    }
}

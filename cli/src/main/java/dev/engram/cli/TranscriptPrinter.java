package dev.engram.cli;

import dev.engram.agents.AgentEvent;
import dev.engram.agents.AgentListener;
import dev.engram.agents.AgentStreamEvent;
import dev.engram.agents.AgentStreamListener;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolStatus;
import java.io.PrintWriter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Prints an agent's turn as a readable transcript: each tool call on one collapsed line when it
 * succeeds, expanded with its error when it fails, and every message the agent sends. As a stream
 * listener it prints the agent's words: its text as it arrives (a plain-text answer is a reply too), and a
 * message a call wrote for the user once the call's result says it reached the user
 * ({@link ToolEffect#MESSAGE_TO_USER}); a message refused, denied or sent to another agent shows as the call it is.
 * On a terminal it shows the tail of a running tool's output ({@link AgentStreamEvent.ToolProgress}): its last
 * {@value #TAIL_LINES} lines, redrawn in place as they come and erased when the call ends, when the call's one line
 * takes their place.
 */
final class TranscriptPrinter implements AgentListener, AgentStreamListener {
    private static final int ARGS_WIDTH = 90;
    /** How many lines of a running tool's output show. */
    static final int TAIL_LINES = 3;
    /** Moves the cursor one line up and clears that line. */
    private static final String UP_AND_CLEAR = "\u001b[1A\u001b[2K";
    private final PrintWriter out;
    private final String agentLabel;
    /** Whether a running tool's output is shown (a terminal, where lines can be redrawn). */
    private final boolean liveOutput;
    /** The call whose output shows, its last whole lines and the line it is printing. */
    private String liveCall;
    private final ArrayDeque<String> liveLines = new ArrayDeque<>();
    private final StringBuilder livePartial = new StringBuilder();
    /** How many lines of tool output are on the screen, above the cursor. */
    private int liveDrawn;
    private final Map<String, String> arguments = new ConcurrentHashMap<>();
    /** Whether replies reach this printer as a stream (then they are not printed again when sent). */
    private volatile boolean streaming;
    /** What the open line is printing ("text"), or null when no line is open. */
    private String openLine;

    TranscriptPrinter(PrintWriter out, String agentLabel) {
        this(out, agentLabel, false);
    }

    /** @param liveOutput whether to show the tail of a running tool's output (on a terminal, which can redraw lines) */
    TranscriptPrinter(PrintWriter out, String agentLabel, boolean liveOutput) {
        this.out = out;
        this.agentLabel = agentLabel;
        this.liveOutput = liveOutput;
    }

    @Override
    public synchronized void onEvent(AgentStreamEvent event) {
        streaming = true;
        if (!(event instanceof AgentStreamEvent.ToolProgress)) {
            clearLive();
        }
        switch (event) {
            case AgentStreamEvent.Text t -> write("text", t.delta());
            case AgentStreamEvent.ToolProgress p -> live(p);
            case AgentStreamEvent.ToolReturn r -> r.result().userMessage().ifPresent(text -> {
                endLine();
                out.println(agentLabel + " > " + text);
            });
            case AgentStreamEvent.StepFinished f -> endLine();
            case AgentStreamEvent.Completed c -> endLine();
            default -> {
            }
        }
        out.flush();
    }

    private void write(String what, String delta) {
        if (!what.equals(openLine)) {
            endLine();
            out.print(agentLabel + " > ");
            openLine = what;
        }
        out.print(delta);
    }

    /** Adds a running call's output to the tail and redraws it. */
    private void live(AgentStreamEvent.ToolProgress p) {
        if (!liveOutput) {
            return;
        }
        endLine();
        if (!p.callId().equals(liveCall)) {
            liveCall = p.callId();
            liveLines.clear();
            livePartial.setLength(0);
        }
        for (char c : p.chunk().toCharArray()) {
            if (c == '\n') {
                liveLines.addLast(livePartial.toString());
                livePartial.setLength(0);
                if (liveLines.size() > TAIL_LINES) {
                    liveLines.removeFirst();
                }
            } else if (c == '\r') {
                livePartial.setLength(0); // a progress bar redraws its line
            } else if (livePartial.length() < ARGS_WIDTH) {
                livePartial.append(c < ' ' || c == 0x7f ? ' ' : c); // no escape sequence of the tool's reaches the terminal
            }
        }
        List<String> shown = new ArrayList<>(liveLines);
        if (!livePartial.isEmpty()) {
            shown.add(livePartial.toString());
        }
        eraseLive();
        for (String line : shown.subList(Math.max(0, shown.size() - TAIL_LINES), shown.size())) {
            out.println("    | " + line);
            liveDrawn++;
        }
    }

    /** Erases the tail of a running call's output, and forgets it. */
    private void clearLive() {
        eraseLive();
        liveCall = null;
        liveLines.clear();
        livePartial.setLength(0);
    }

    private void eraseLive() {
        for (; liveDrawn > 0; liveDrawn--) {
            out.print(UP_AND_CLEAR);
        }
    }

    private void endLine() {
        if (openLine != null) {
            out.println();
            openLine = null;
        }
    }

    void user(String text) {
        out.println();
        out.println("you > " + text);
        out.flush();
    }

    @Override
    public synchronized void onEvent(AgentEvent event) {
        clearLive();
        endLine();
        switch (event) {
            case AgentEvent.ToolCallStarted s -> arguments.put(s.call().id(), s.call().arguments());
            case AgentEvent.ToolCallFinished f -> {
                String args = compact(arguments.getOrDefault(f.result().callId(), ""));
                if (f.result().status() == ToolStatus.SUCCESS) {
                    if (!f.result().has(ToolEffect.MESSAGE_TO_USER)) {
                        out.printf(Locale.ROOT, "  - %s %s  (%d ms)%n", f.result().toolName(), args,
                                f.result().duration().toMillis());
                    }
                } else {
                    out.printf(Locale.ROOT, "  x %s %s  [%s]%n", f.result().toolName(), args,
                            f.result().status().name().toLowerCase(Locale.ROOT));
                    for (String line : f.result().content().split("\n")) {
                        out.println("      " + line);
                    }
                }
            }
            case AgentEvent.MessageSent m -> {
                if (m.toAgentId().isEmpty()) {
                    if (!streaming) {
                        out.println(agentLabel + " > " + m.text());
                    }
                } else {
                    out.println("  -> to agent " + m.toAgentId().get() + ": " + m.text());
                }
            }
            case AgentEvent.ContextCompacted c -> out.printf(Locale.ROOT,
                    "  (context compacted: %d messages summarised, %d -> %d tokens)%n", c.evictedMessages(),
                    c.tokensBefore(), c.tokensAfter());
            default -> {
            }
        }
        out.flush();
    }

    /** What to print for a scheduled message delivered to {@code agentName}: a marker line, then the reply or what went wrong. */
    static String scheduled(dev.engram.agents.ScheduledDelivery d, String agentName) {
        StringBuilder b = new StringBuilder("  (scheduled message " + d.schedule().id() + " to '" + agentName + "'"
                + (d.late() ? ", delivered late" : "") + ": " + compact(d.schedule().message()) + ")\n");
        d.response().flatMap(dev.engram.agents.AgentResponse::reply).ifPresent(r -> b.append(agentName).append(" > ").append(r).append('\n'));
        d.error().ifPresent(e -> b.append("  x the scheduled turn did not complete: ").append(e).append('\n'));
        return b.toString();
    }

    static String compact(String json) {
        String oneLine = json.replaceAll("\\s+", " ").strip();
        return oneLine.length() <= ARGS_WIDTH ? oneLine : oneLine.substring(0, ARGS_WIDTH - 3) + "...";
    }
}

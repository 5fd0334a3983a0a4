package dev.engram.cli;

import dev.engram.agents.AgentEvent;
import dev.engram.agents.AgentListener;
import dev.engram.agents.AgentStreamEvent;
import dev.engram.agents.AgentStreamListener;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolStatus;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Prints an agent's turn as a readable transcript: each tool call on one collapsed line when it
 * succeeds, expanded with its error when it fails, and every message the agent sends. As a stream
 * listener it prints the agent's words: its text as it arrives (a plain-text answer is a reply too), and a
 * message a call wrote for the user once the call's result says it reached the user
 * ({@link ToolEffect#MESSAGE_TO_USER}); a message refused, denied or sent to another agent shows as the call it is.
 */
final class TranscriptPrinter implements AgentListener, AgentStreamListener {
    private static final int ARGS_WIDTH = 90;
    private final PrintWriter out;
    private final String agentLabel;
    private final Map<String, String> arguments = new ConcurrentHashMap<>();
    /** Whether replies reach this printer as a stream (then they are not printed again when sent). */
    private volatile boolean streaming;
    /** What the open line is printing ("text"), or null when no line is open. */
    private String openLine;

    TranscriptPrinter(PrintWriter out, String agentLabel) {
        this.out = out;
        this.agentLabel = agentLabel;
    }

    @Override
    public synchronized void onEvent(AgentStreamEvent event) {
        streaming = true;
        switch (event) {
            case AgentStreamEvent.Text t -> write("text", t.delta());
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

package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentStreamEvent;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One turn answered as Server-Sent Events, as Letta streams: each event's data is one message of Letta's
 * union, then a {@code stop_reason} and a {@code usage_statistics} message, then {@code [DONE]}. Without
 * {@code stream_tokens} each message is sent whole once it is stored (ids are the stored ones); with it,
 * fragments are sent as the model produces them (reasoning, assistant text and the reply being written,
 * tool-call arguments), each message's fragments sharing an id of the stream's own, and tool returns once
 * stored. {@code include_pings} adds a {@code ping} message every ping interval while the turn runs. A failed
 * model ends the stream with an {@code error} event. A client that goes away cancels the turn.
 */
final class SseTurn {
    private static final Logger LOG = LoggerFactory.getLogger(SseTurn.class);

    private final Api api;
    private final Agent agent;
    private final TurnViews.View view;
    private final boolean tokens;
    private final boolean pings;
    private final String streamId = UUID.randomUUID().toString().substring(0, 8);
    private final Map<Integer, String> callNames = new HashMap<>();
    private ServerResponse res;
    private OutputStream out;
    private Turns.Running turn;
    private volatile boolean open = true;

    SseTurn(Api api, Agent agent, TurnViews.View view, boolean tokens, boolean pings) {
        this.api = api;
        this.agent = agent;
        this.view = view;
        this.tokens = tokens;
        this.pings = pings;
    }

    void run(TurnRequest.Input input, ServerResponse response) {
        run("default", input, response);
    }

    /** Runs the turn in {@code session} (the agent's own {@code default}, or a conversation's id). */
    void run(String session, TurnRequest.Input input, ServerResponse response) {
        this.res = response;
        turn = TurnFlow.begin(api, agent, session, input, true, this::onEvent);
        Thread pinger = pings ? Thread.ofVirtual().name("engram-sse-ping").start(this::ping) : null;
        try {
            Turns.Pause pause = TurnFlow.await(turn);
            switch (pause) {
                case Turns.Pause.Finished f -> {
                    flushStored();
                    finish(TurnViews.stopReason(f.response().stopReason()), f.response());
                }
                case Turns.Pause.NeedsApproval n -> {
                    List<ObjectNode> rest = TurnViews.withApprovalRequest(tokens ? List.of()
                            : view.of(turn.unshown()), n.pending());
                    if (tokens) {
                        turn.unshown();
                    }
                    rest.forEach(this::emit);
                    finish("requires_approval", null);
                }
                case Turns.Pause.Failed f -> {
                    flushStored();
                    ApiException e = TurnFlow.turnFailed(f.error());
                    write("error", Body.JSON.writeValueAsString(e.body()));
                    write(null, "[DONE]");
                }
            }
        } catch (UncheckedIOException e) {
            LOG.debug("The stream's client went away: {}", e.getMessage());
        } finally {
            turn.listen(null);
            open = false;
            if (pinger != null) {
                pinger.interrupt();
            }
            synchronized (this) {
                if (out != null) {
                    try {
                        out.close();
                    } catch (IOException e) {
                        LOG.debug("The stream's client went away: {}", e.toString());
                    }
                }
            }
        }
    }

    private void finish(String reason, AgentResponse response) {
        emit(TurnViews.stopReasonMessage(reason));
        emit(TurnViews.usage(response));
        write(null, "[DONE]");
    }

    /** Events of the turn, on the agent's thread. */
    private void onEvent(AgentStreamEvent event) {
        if (!tokens) {
            if (event instanceof AgentStreamEvent.ToolReturn || event instanceof AgentStreamEvent.StepFinished) {
                flushStored();
            }
            return;
        }
        Instant now = Instant.now();
        switch (event) {
            case AgentStreamEvent.StepStarted s -> callNames.clear();
            case AgentStreamEvent.Reasoning r -> emit(fragment(id(r.step(), "reasoning"), "reasoning_message", now)
                    .put("reasoning", r.delta()).put("source", "reasoner_model"));
            case AgentStreamEvent.Text t -> emit(fragment(id(t.step(), "text"), "assistant_message", now).put("content", t.delta()));
            case AgentStreamEvent.ReplyDelta d -> emit(fragment(id(d.step(), "reply-" + d.index()), "assistant_message", now)
                    .put("content", d.delta()));
            case AgentStreamEvent.ToolCallDelta c -> {
                if (!c.toolName().isEmpty()) {
                    callNames.put(c.index(), c.toolName());
                }
                String name = callNames.getOrDefault(c.index(), "");
                if (!(view.assistantMessages() && name.equals("send_message"))) {
                    ObjectNode o = fragment(id(c.step(), "call-" + c.index()), "tool_call_message", now);
                    ObjectNode call = o.putObject("tool_call");
                    if (!c.toolName().isEmpty()) {
                        call.put("name", c.toolName());
                    }
                    call.put("arguments", c.argumentsDelta());
                    if (!c.callId().isEmpty()) {
                        call.put("tool_call_id", c.callId());
                    }
                    emit(o);
                }
            }
            case AgentStreamEvent.ToolReturn r -> {
                if (!(view.assistantMessages() && r.result().toolName().equals("send_message"))) {
                    emit(fragment(id(r.step(), "return-" + r.result().callId()), "tool_return_message", now)
                            .put("tool_return", r.result().content()).put("status", r.result().isError() ? "error" : "success")
                            .put("tool_call_id", r.result().callId()));
                }
            }
            default -> {
            }
        }
    }

    private String id(int step, String part) {
        return "message-" + streamId + "-" + step + "-" + part;
    }

    private static ObjectNode fragment(String id, String type, Instant at) {
        return Body.JSON.createObjectNode().put("id", id).put("date", LettaViews.date(at)).put("message_type", type);
    }

    /** Sends the turn's stored messages not sent yet (whole messages, without stream_tokens). */
    private void flushStored() {
        List<ObjectNode> stored = view.of(turn.unshown());
        if (!tokens) {
            stored.forEach(this::emit);
        }
    }

    private void ping() {
        try {
            while (open) {
                Thread.sleep(api.settings.pingInterval());
                if (open) {
                    emit(Body.JSON.createObjectNode().put("id", "ping-" + streamId).put("date", LettaViews.date(Instant.now()))
                            .put("message_type", "ping"));
                }
            }
        } catch (InterruptedException e) {
            // the stream ended
        } catch (RuntimeException e) {
            LOG.debug("Ping not sent: {}", e.toString());
        }
    }

    private void emit(ObjectNode message) {
        write(null, Body.JSON.writeValueAsString(message));
    }

    /**
     * Writes one event ({@code event:} line only when named) and flushes it. The response is a
     * {@code text/event-stream} whatever the request's {@code Accept} says, as Letta's server answers. A client
     * that went away makes this throw, which cancels the turn when it comes from the turn's thread.
     */
    private synchronized void write(String event, String data) {
        try {
            if (out == null) {
                res.header(HeaderNames.CONTENT_TYPE, "text/event-stream");
                res.header(HeaderNames.CACHE_CONTROL, "no-cache");
                out = res.outputStream();
            }
            out.write(((event == null ? "" : "event: " + event + "\n") + "data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the stream's client went away", e);
        }
    }
}

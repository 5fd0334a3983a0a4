package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentStreamEvent;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolResult;
import dev.engram.memory.Run;
import dev.engram.memory.RunEvent;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * One turn answered as Server-Sent Events, as Letta streams: each event's data is one message of Letta's
 * union, then a {@code stop_reason} and a {@code usage_statistics} message, then {@code [DONE]}. Without
 * {@code stream_tokens} each message is sent whole once it is stored (ids are the stored ones); with it,
 * fragments are sent as the model produces them (reasoning, assistant text and the reply being written,
 * tool-call arguments), each message's fragments sharing an id of the stream's own, and tool returns once
 * stored. A call that writes a message for the user ({@link AgentStreamEvent.ReplyDelta}) is held back until its
 * result says what became of it: an {@code assistant_message} when it reached the user, else its tool call and
 * return (refused by a rule, denied, or sent to another agent). {@code include_pings} adds a {@code ping} message every ping interval while the turn runs. A failed
 * model ends the stream with an {@code error} event. A client that goes away cancels the turn, unless it asked for a
 * background run: then the turn goes on, and its events are kept for the client to resume ({@link RunLog}). The turn
 * is a run: every event but a ping carries its {@code run_id} and a {@code seq_id} numbering the run's events from 1.
 *
 * <p>{@code include_tool_progress} (Engram's own, off by default) adds what a running tool prints
 * ({@link AgentStreamEvent.ToolProgress}) as named events, {@code event: tool_progress}, whose data is a
 * {@code tool_progress_message} with the call's {@code tool_call_id}, its {@code name} and the {@code chunk}. Letta's
 * clients never see them: its TypeScript client (and Letta Code, which bundles it) passes on only unnamed events and
 * the named {@code error}, and both skip a {@code message_type} they do not know. Like pings they are not the run's
 * events: neither numbered nor kept for a resumed stream. Only the tool's result goes to the model.
 */
final class SseTurn {
    private static final Logger LOG = LoggerFactory.getLogger(SseTurn.class);

    private final Api api;
    private final Agent agent;
    private final TurnViews.View view;
    private final boolean tokens;
    private final boolean pings;
    private final boolean background;
    private final boolean toolProgress;
    private final String streamId = UUID.randomUUID().toString().substring(0, 8);
    /** The name and call id of each call whose fragments are streamed, by its fragments' id: every fragment repeats them. */
    private final Map<String, HeldCall> calls = new HashMap<>();
    /** The calls of the current step that write a message for the user, by index, held until their result. */
    private final Map<Integer, HeldCall> held = new HashMap<>();
    private ServerResponse res;
    private OutputStream out;
    /** Set once the turn started or resumed; a resumed turn's events may come before (they are flushed later). */
    private volatile Turns.Running turn;
    private volatile boolean open = true;
    private Run run;
    private RunLog.Recorder recorder;
    /** The sequence number of the last event sent (Letta's {@code seq_id}); guarded by {@code this}. */
    private long seq;
    /** Whether the client went away from a background run, which goes on without it. */
    private boolean clientGone;
    /** Why the run stopped, once it did. */
    private String stopReason = "cancelled";
    /** Whether the run's record was ended; guarded by {@code this}. */
    private boolean ended;

    /**
     * @param background whether the turn goes on when the client goes away ({@code background: true}), its events kept
     *                   for the client to resume ({@link RunLog}); otherwise a client that goes away cancels it
     */
    SseTurn(Api api, Agent agent, TurnViews.View view, boolean tokens, boolean pings, boolean background,
            boolean toolProgress) {
        this.api = api;
        this.toolProgress = toolProgress;
        this.agent = agent;
        this.view = view;
        this.tokens = tokens;
        this.pings = pings;
        this.background = background;
    }

    /** The stream a request asks for; {@code background} (its body's) says whether the turn outlives its client. */
    static SseTurn of(Api api, Agent agent, TurnRequest request, Body body) {
        return new SseTurn(api, agent, request.view(), request.streamTokens(), request.includePings(),
                body.bool("background").orElse(false), body.bool("include_tool_progress").orElse(false));
    }

    void run(TurnRequest.Input input, ServerResponse response) {
        run("default", input, response);
    }

    /** Runs the turn in {@code session} (the agent's own {@code default}, or a conversation's id). */
    void run(String session, TurnRequest.Input input, ServerResponse response) {
        this.res = response;
        run = api.runs.start(agent, session, background);
        recorder = background ? api.runs.recorder(run) : null;
        follow(session, input);
    }

    /**
     * Starts the turn as a background run no client streams ({@code POST …/messages/async}) and returns the run at once:
     * the turn goes on on a thread of its own, its events kept for {@code POST /v1/runs/{id}/stream}. A turn that cannot
     * start (the agent waiting for an approval, a quota) ends the run failed, with an {@code error} event saying why.
     */
    static Run detached(Api api, Agent agent, TurnRequest request, String session) {
        SseTurn sse = new SseTurn(api, agent, request.view(), false, false, true, false);
        sse.clientGone = true;
        sse.run = api.runs.start(agent, session, true);
        sse.recorder = api.runs.recorder(sse.run);
        Thread.ofVirtual().name("engram-async-" + sse.run.id()).start(RequestIds.carry(() -> {
            try {
                sse.follow(session, request.input());
            } catch (RuntimeException e) {
                LOG.debug("Async run {} failed: {}", sse.run.id(), e.toString());
            }
        }));
        return sse.run;
    }

    private void follow(String session, TurnRequest.Input input) {
        try {
            turn = TurnFlow.begin(api, agent, session, input, true, this::onEvent, run);
        } catch (RuntimeException e) {
            if (res == null) {
                // a detached run: its error is an event of the run, as a failed turn's is
                send("error", TurnFlow.turnFailed(e).body().put("message_type", "error_message"));
            }
            end("error");
            throw e;
        }
        Thread pinger = pings ? Thread.ofVirtual().name("engram-sse-ping").start(this::ping) : null;
        try {
            Turns.Pause pause = TurnFlow.await(turn);
            switch (pause) {
                case Turns.Pause.Finished f -> {
                    flushStored();
                    finish(TurnViews.stopReason(f.response().stopReason()), f.response());
                }
                case Turns.Pause.NeedsApproval n -> {
                    List<ObjectNode> stored = view.of(turn.unshown());
                    // With stream_tokens the turn's messages went out as fragments: of them only the waiting calls'
                    // stored messages count here, so that each request carries its stored id, as without tokens.
                    Set<String> waiting = n.pending().stream().map(Turns.Pending::callId).collect(Collectors.toSet());
                    List<ObjectNode> rest = TurnViews.withApprovalRequest(tokens ? stored.stream()
                            .filter(m -> m.path("message_type").asString().equals("tool_call_message")
                                    && waiting.contains(m.path("tool_call").path("tool_call_id").asString()))
                            .toList() : stored, n.pending());
                    rest.forEach(this::emit);
                    finish("requires_approval", null);
                }
                case Turns.Pause.Failed f -> {
                    flushStored();
                    stopReason = "error";
                    ApiException e = TurnFlow.turnFailed(f.error());
                    send("error", e.body().put("message_type", "error_message").put("request_id", RequestIds.current()));
                    write(null, "[DONE]");
                }
            }
        } catch (UncheckedIOException e) {
            LOG.debug("The stream's client went away: {}", e.getMessage());
        } finally {
            turn.listen(null);
            open = false;
            end(stopReason);
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
        stopReason = reason;
        emit(TurnViews.stopReasonMessage(reason));
        ObjectNode usage = TurnViews.usage(response);
        usage.putArray("run_ids").add(run.id());
        emit(usage);
        write(null, "[DONE]");
    }

    /** Ends the run's record (once): its events written, its status and stop reason. */
    private synchronized void end(String reason) {
        if (ended) {
            return;
        }
        ended = true;
        if (recorder != null) {
            RunLog.Recorder r = recorder;
            recorder = null;
            r.close(reason);
        } else {
            api.runs.finish(run, RunLog.status(reason), reason);
        }
    }

    /** Events of the turn, on the agent's thread. */
    private void onEvent(AgentStreamEvent event) {
        if (event instanceof AgentStreamEvent.ToolProgress p) {
            // from the call's thread; write() is synchronized
            if (toolProgress) {
                write("tool_progress", Body.JSON.writeValueAsString(Body.JSON.createObjectNode()
                        .put("id", id(p.step(), "progress-" + p.callId())).put("date", LettaViews.date(Instant.now()))
                        .put("message_type", "tool_progress_message").put("tool_call_id", p.callId())
                        .put("name", p.toolName()).put("chunk", p.chunk()).put("run_id", run.id())));
            }
            return;
        }
        if (!tokens) {
            if (event instanceof AgentStreamEvent.ToolReturn || event instanceof AgentStreamEvent.StepFinished) {
                flushStored();
            }
            return;
        }
        Instant now = Instant.now();
        switch (event) {
            case AgentStreamEvent.StepStarted s -> held.clear();
            case AgentStreamEvent.Reasoning r -> emit(fragment(id(r.step(), "reasoning"), "reasoning_message", now)
                    .put("reasoning", r.delta()).put("source", "reasoner_model"));
            case AgentStreamEvent.Text t -> emit(fragment(id(t.step(), "text"), "assistant_message", now).put("content", t.delta()));
            case AgentStreamEvent.ReplyDelta d -> {
                if (view.assistantMessages()) {
                    HeldCall h = held.computeIfAbsent(d.index(), i -> new HeldCall());
                    if (!d.delta().isEmpty()) {
                        h.reply.add(d.delta());
                    }
                }
            }
            case AgentStreamEvent.ToolCallDelta c -> {
                HeldCall h = held.get(c.index());
                if (h != null) {
                    h.add(c);
                } else {
                    emit(callFragment(c.step(), c.index(), c.toolName(), c.argumentsDelta(), c.callId(), now));
                }
            }
            case AgentStreamEvent.ToolReturn r -> {
                ToolResult result = r.result();
                Optional<Map.Entry<Integer, HeldCall>> h = held.entrySet().stream()
                        .filter(e -> e.getValue().callId.equals(result.callId())).findFirst();
                if (h.isPresent()) {
                    held.remove(h.get().getKey());
                    if (result.has(ToolEffect.MESSAGE_TO_USER)) {
                        for (String piece : h.get().getValue().reply) {
                            emit(fragment(id(r.step(), "reply-" + h.get().getKey()), "assistant_message", now).put("content", piece));
                        }
                        return;
                    }
                    HeldCall call = h.get().getValue();
                    emit(callFragment(r.step(), h.get().getKey(), call.name, call.arguments.toString(), call.callId, now));
                }
                emit(fragment(id(r.step(), "return-" + result.callId()), "tool_return_message", now)
                        .put("tool_return", result.content()).put("status", result.isError() ? "error" : "success")
                        .put("tool_call_id", result.callId()));
            }
            default -> {
            }
        }
    }

    /** A fragment of a call, repeating the call's name and id (from its first fragments) as Letta's chunks do. */
    private ObjectNode callFragment(int step, int index, String name, String arguments, String callId, Instant at) {
        String id = id(step, "call-" + index);
        HeldCall known = calls.computeIfAbsent(id, i -> new HeldCall());
        known.remember(name, callId);
        ObjectNode o = fragment(id, "tool_call_message", at);
        ObjectNode call = o.putObject("tool_call");
        if (!known.name.isEmpty()) {
            call.put("name", known.name);
        }
        call.put("arguments", arguments);
        if (!known.callId.isEmpty()) {
            call.put("tool_call_id", known.callId);
        }
        return o;
    }

    /** The fragments of a call that writes a message for the user, and the pieces of the message decoded so far. */
    private static final class HeldCall {
        String name = "";
        String callId = "";
        final StringBuilder arguments = new StringBuilder();
        final List<String> reply = new ArrayList<>();

        void add(AgentStreamEvent.ToolCallDelta c) {
            remember(c.toolName(), c.callId());
            arguments.append(c.argumentsDelta());
        }

        void remember(String toolName, String id) {
            if (!toolName.isEmpty()) {
                name = toolName;
            }
            if (!id.isEmpty()) {
                callId = id;
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
        if (turn == null) {
            return;
        }
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
                    // a keepalive of this connection: not one of the run's events, so not numbered nor kept
                    write(null, Body.JSON.writeValueAsString(Body.JSON.createObjectNode().put("id", "ping-" + streamId)
                            .put("date", LettaViews.date(Instant.now())).put("message_type", "ping").put("run_id", run.id())));
                }
            }
        } catch (InterruptedException e) {
            // the stream ended
        } catch (RuntimeException e) {
            LOG.debug("Ping not sent: {}", e.toString());
        }
    }

    private void emit(ObjectNode message) {
        send(null, message);
    }

    /** Sends one of the run's events, numbered and marked with the run as Letta's are, and keeps it for a background run. */
    private synchronized void send(String event, ObjectNode message) {
        message.put("run_id", run.id()).put("seq_id", ++seq);
        String data = Body.JSON.writeValueAsString(message);
        if (recorder != null) {
            recorder.add(new RunEvent(seq, event == null ? "" : event, data));
        }
        write(event, data);
    }

    /**
     * Writes one event ({@code event:} line only when named) and flushes it. The response is a
     * {@code text/event-stream} whatever the request's {@code Accept} says, as Letta's server answers. A client
     * that went away makes this throw, which cancels the turn when it comes from the turn's thread; from a background
     * run it goes away quietly, and the run goes on.
     */
    private synchronized void write(String event, String data) {
        if (clientGone) {
            return;
        }
        try {
            if (out == null) {
                res.header(HeaderNames.CONTENT_TYPE, "text/event-stream");
                res.header(HeaderNames.CACHE_CONTROL, "no-cache");
                out = res.outputStream();
            }
            out.write(((event == null ? "" : "event: " + event + "\n") + "data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException | UncheckedIOException | ServerConnectionException e) {
            // Helidon reports a client gone as a ServerConnectionException on a later write
            if (background) {
                LOG.debug("The stream's client went away; background run {} goes on: {}", run.id(), e.toString());
                clientGone = true;
                return;
            }
            throw e instanceof RuntimeException r ? r : new UncheckedIOException("the stream's client went away", (IOException) e);
        }
    }
}

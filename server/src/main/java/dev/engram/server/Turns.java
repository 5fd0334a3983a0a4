package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentEvent;
import dev.engram.agents.AgentListener;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentStreamEvent;
import dev.engram.agents.AgentStreamListener;
import dev.engram.agents.ClientAnswer;
import dev.engram.agents.ClientCall;
import dev.engram.agents.ClientTools;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.ApprovalHandler;
import dev.engram.framework.ApprovalRequest;
import dev.engram.framework.ToolDefinition;
import dev.engram.memory.Block;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.Scope;
import dev.engram.tools.ConsentRequest;
import dev.engram.tools.PermissionBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The turns the server runs. A turn holds the agent's {@link TurnLock} throughout; the request that started it
 * waits for its next pause: the end of the turn, or a tool call that needs approval. An approval pauses the turn
 * (the request answers {@code requires_approval}); the request that brings the answer resumes it and waits for
 * the next pause. So a turn that may ask for approval, or that streams, runs on a thread of its own; a turn of an
 * agent none of whose tools ever asks ({@link Agent#mayRequestApproval()}) runs on the request's own thread, which
 * saves two thread hand-offs per message (about 0.25 ms on 2 cores, ServerLoad). The server is the runtime's
 * {@link ApprovalHandler}: a call made by a turn that no request started (a scheduled message's, see
 * {@link #runScheduled}) is denied, saying why.
 *
 * <p>The server is the runtime's {@link PermissionBroker} too: a write to a {@code partner} or {@code human} block
 * asks the client for consent exactly as a tool call asks for approval (the turn pauses with an
 * {@code approval_request_message} for the call that writes; approving it consents). An agent with such blocks runs
 * its turns as one that may ask.
 *
 * <p>A message that brings {@code client_tools} runs its turn with them ({@link ClientTools}): a step that calls one
 * pauses with every call of the step that waits for the client, all answered by one approval message
 * ({@link ClientWaits}, {@link ApprovalAnswers}).
 *
 * <p>A turn that may ask for approval runs on a virtual thread, so that waiting for the answer (up to the approval
 * timeout) holds no platform thread: a parked virtual thread is a few kilobytes of heap. Waiting turns are capped
 * per user and per server: a call that would wait beyond a cap is denied at once, with a reason that says which.
 */
final class Turns implements ApprovalHandler, PermissionBroker, AgentListener {
    private static final Logger LOG = LoggerFactory.getLogger(Turns.class);

    private final MemoryStore store;
    private final TurnLock lock;
    private final ConcurrentHashMap<Scope, Running> running = new ConcurrentHashMap<>();
    private volatile boolean stopping;
    /**
     * Turns of their own thread run on reused platform threads: a turn is CPU work around JNI calls (SQLite, the
     * tokenizer), which pin a virtual thread to its carrier anyway, and its thread-local caches stay warm across
     * turns (measured: a turn on a fresh virtual thread each time took about 0.4 ms longer at the median,
     * ServerLoad).
     */
    private final ExecutorService threads = Executors.newCachedThreadPool(Thread.ofPlatform().name("engram-turn-", 0).daemon().factory());
    /** Turns that may wait for an approval: a virtual thread each, which unmounts while it waits. */
    private final ExecutorService approvalThreads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("engram-approval-turn-", 0).factory());
    private final WaitingCaps caps;
    private final Metrics metrics;

    Turns(MemoryStore store, TurnLock lock, int maxWaitingPerUser, int maxWaitingPerServer, Metrics metrics) {
        this.store = store;
        this.metrics = metrics;
        this.lock = lock;
        this.caps = new WaitingCaps(maxWaitingPerUser, maxWaitingPerServer);
    }

    /** How many turns wait for an approval now. */
    int waiting() {
        return caps.waiting();
    }

    /** How many turns run on this server now. */
    int runningCount() {
        return running.size();
    }

    /** Where a turn stopped for the request waiting on it. */
    sealed interface Pause {
        /** The turn ended. */
        record Finished(AgentResponse response) implements Pause {
        }

        /** The turn failed (the model failed); what it stored stays. */
        record Failed(RuntimeException error) implements Pause {
        }

        /**
         * Tool calls wait for the client (their approval, or a client tool's result); the turn goes on when all are
         * answered.
         */
        record NeedsApproval(List<Pending> pending) implements Pause {
        }
    }

    /** A tool call waiting for the client: to approve it, or (a client tool's) to run it and return its result. */
    record Pending(String toolName, String arguments, String callId, Instant at, ClientCall.Kind kind,
            CompletableFuture<ClientAnswer> answer) {
    }

    /** A running turn of one agent. */
    static final class Running {
        final Agent agent;
        final LinkedBlockingQueue<Pause> pauses = new LinkedBlockingQueue<>();
        /** The calls the turn waits on the client for, all of one pause; empty when it does not wait. */
        volatile List<Pending> pending = List.of();
        private volatile AgentStreamListener listener;
        /** The messages the turn stored, in order ({@link AgentEvent.MessagesStored}); guarded by itself. */
        private final List<ConversationMessage> stored = new ArrayList<>();
        /** How many of {@link #stored} the waiting requests have shown; guarded by {@link #stored}. */
        private int shown;

        /** Whether the turn runs on its request's thread, which cannot answer the request while it waits. */
        volatile boolean inline;

        /** Whether the turn delivers a scheduled message: no request waits on it, so no one can approve its calls. */
        volatile boolean scheduled;

        /** The session the turn runs in: {@code default} or a conversation's id. */
        final String session;

        /** The run whose request the turn works for now (an approval's request takes it over): its steps are that run's. */
        volatile String runId = "";

        Running(Agent agent, String session) {
            this.agent = agent;
            this.session = session;
        }

        List<Pending> pending() {
            return pending;
        }

        /** The turn's stored messages no request has shown yet, marking them shown. */
        List<ConversationMessage> unshown() {
            synchronized (stored) {
                List<ConversationMessage> out = List.copyOf(stored.subList(shown, stored.size()));
                shown = stored.size();
                return out;
            }
        }

        /** The message of this turn that made the call, if the turn stored it. */
        Optional<ConversationMessage> messageWithCall(String callId) {
            synchronized (stored) {
                return stored.stream().filter(m -> m.toolCalls().stream().anyMatch(c -> c.id().equals(callId))).findFirst();
            }
        }

        private void stored(List<ConversationMessage> messages) {
            synchronized (stored) {
                stored.addAll(messages);
            }
        }

        /** Directs the turn's stream events to {@code to} (none: {@code null}). */
        void listen(AgentStreamListener to) {
            listener = to;
        }

        /** Waits for the turn's next pause. */
        Pause next() throws InterruptedException {
            return pauses.take();
        }
    }

    /** The running turn of an agent, if one runs on this server. */
    Optional<Running> running(Scope scope) {
        return Optional.ofNullable(running.get(scope));
    }

    /**
     * Runs a turn: waits for the agent's lock, then sends the message (through {@code Agent.stream} when
     * {@code streamed}), with the tools the request's client runs itself ({@code client_tools}, offered for this turn
     * only); the caller hears of it through {@link Running#next()}. A streamed turn, one with client tools, or one of
     * an agent that may ask for approval, runs on a thread of its own and this returns at once; any other runs on the
     * calling thread and has ended when this returns. A lock that cannot be taken (the server stopping, the
     * database unreachable) ends it with a {@link Pause.Failed} holding the request's answer.
     *
     * @throws ApiException 409 if the agent's running turn waits for an approval; 503 if the server is stopping
     */
    Running start(Agent agent, String session, TurnRequest.Input.Message message, boolean streamed,
            AgentStreamListener listener, String runId) {
        if (stopping) {
            throw stoppingError();
        }
        Running current = running.get(agent.scope());
        if (current != null && !current.pending.isEmpty()) {
            Pending p = current.pending.getFirst();
            throw ApiException.conflict("Agent '" + agent.id() + "' is waiting for the " + (p.kind() == ClientCall.Kind.RUN
                    ? "result" : "approval") + " of a call to '" + p.toolName() + "' (tool_call_id " + p.callId()
                    + "); answer it with an approval message before sending another message.");
        }
        Running r = new Running(agent, session);
        r.runId = runId;
        r.listener = listener;
        Optional<ClientTools> client = message.clientTools().isEmpty() ? Optional.empty()
                : Optional.of(new ClientTools(message.clientTools(), (scope, calls) -> ClientWaits.awaitClient(r, calls, caps, store.clock())));
        if (client.isPresent() || agent.mayRequestApproval() || mayAskConsent(agent.scope())) {
            approvalThreads.execute(RequestIds.carry(() -> run(r, session, message, client, streamed)));
        } else if (streamed) {
            threads.execute(RequestIds.carry(() -> run(r, session, message, client, streamed)));
        } else {
            r.inline = true;
            run(r, session, message, client, false);
            // A cancel that came as the turn ended may have interrupted this thread after the agent looked.
            Thread.interrupted();
        }
        return r;
    }

    private void run(Running r, String session, TurnRequest.Input.Message message, Optional<ClientTools> client,
            boolean streamed) {
        Scope scope = r.agent.scope();
        try (TurnLock.Hold hold = acquire(scope)) {
            if (stopping) {
                r.pauses.add(new Pause.Failed(stoppingError()));
                return;
            }
            running.put(scope, r);
            Pause end;
            long start = System.nanoTime();
            try {
                AgentStreamListener forward = event -> forward(r, event);
                AgentResponse response = client.isPresent()
                        ? streamed ? r.agent.stream(session, message.text(), message.images(), client.get(), forward)
                                : r.agent.send(session, message.text(), message.images(), client.get())
                        : streamed ? r.agent.stream(session, message.text(), message.images(), forward)
                                : r.agent.send(session, message.text(), message.images());
                metrics.turn(Duration.ofNanos(System.nanoTime() - start), Metrics.outcome(response.stopReason()));
                end = new Pause.Finished(response);
            } catch (RuntimeException e) {
                metrics.turn(Duration.ofNanos(System.nanoTime() - start), "failed");
                end = new Pause.Failed(e);
            } finally {
                running.remove(scope, r);
            }
            // The turn is no longer running when its request hears that it ended.
            r.pauses.add(end);
        } catch (InterruptedException e) {
            r.pauses.add(new Pause.Failed(stoppingError()));
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // the lock itself failed (e.g. the database is unreachable)
            r.pauses.add(new Pause.Failed(StoreFailures.answer(e).orElseGet(() -> {
                LOG.error("Could not take the turn lock of agent {}", scope, e);
                return ApiException.of(io.helidon.http.Status.SERVICE_UNAVAILABLE_503,
                        "The agent's turn lock is unavailable; the message was not sent. Try again.");
            })));
        }
    }

    /**
     * Runs the turn of a scheduled message on the calling thread (the server's scheduler), under the agent's
     * {@link TurnLock} as every turn here: it waits for a turn of the agent in progress, on this server or another.
     * While it runs, {@link #cancel} and {@link #stop} reach it like any turn; a call in it that needs approval is
     * denied, since no client waits on it.
     *
     * @throws CancellationException if the server is stopping (or stops while it waits for the lock): the turn did not run
     */
    AgentResponse runScheduled(Agent agent, String session, String message, String runId) {
        if (stopping) {
            throw new CancellationException("the server is stopping");
        }
        Running r = new Running(agent, session);
        r.runId = runId;
        r.scheduled = true;
        Scope scope = agent.scope();
        try (TurnLock.Hold hold = acquire(scope)) {
            if (stopping) {
                throw new CancellationException("the server is stopping");
            }
            running.put(scope, r);
            long start = System.nanoTime();
            String outcome = "failed";
            try {
                AgentResponse response = agent.send(session, message);
                outcome = Metrics.outcome(response.stopReason());
                return response;
            } finally {
                metrics.turn(Duration.ofNanos(System.nanoTime() - start), outcome);
                running.remove(scope, r);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the turn lock of agent " + scope);
        }
    }

    /** Takes the agent's turn lock, counted as a turn waiting while it waits. */
    private TurnLock.Hold acquire(Scope scope) throws InterruptedException {
        Runnable waited = metrics.waitingForLock();
        try {
            return lock.acquire(scope);
        } finally {
            waited.run();
        }
    }

    private static ApiException stoppingError() {
        return ApiException.of(io.helidon.http.Status.SERVICE_UNAVAILABLE_503, "The server is stopping; the message was not sent.");
    }

    private static void forward(Running r, AgentStreamEvent event) {
        AgentStreamListener to = r.listener;
        if (to != null) {
            to.onEvent(event);
        }
    }

    /**
     * Collects the messages each running turn stores, for its requests to show without reading them back. While a
     * turn runs here it holds its agent's lock, so what its scope stores meanwhile is the turn's.
     */
    @Override
    public void onEvent(AgentEvent event) {
        if (event instanceof AgentEvent.MessagesStored m) {
            Running r = running.get(m.scope());
            if (r != null) {
                r.stored(m.messages());
            }
        }
    }

    /**
     * Answers every call the running turn waits on, each with its answer in {@code answers} (by call id); false, and
     * nothing answered, unless the turn waits on exactly those calls.
     */
    boolean answer(Running r, Map<String, ClientAnswer> answers) {
        List<Pending> waiting = r.pending;
        if (waiting.isEmpty() || waiting.size() != answers.size()
                || !waiting.stream().allMatch(p -> answers.containsKey(p.callId()))) {
            return false;
        }
        r.pending = List.of();
        waiting.forEach(p -> p.answer().complete(answers.get(p.callId())));
        return true;
    }

    /** Cancels the agent's running turn (and denies a pending approval); false if none runs here. */
    boolean cancel(Scope scope) {
        Running r = running.get(scope);
        if (r == null) {
            return false;
        }
        List<Pending> waiting = r.pending;
        r.pending = List.of();
        // The turn is cancelled before its waiting calls are answered: woken by an answer, it must already see the
        // cancellation, or it would take another step (and call its model) before noticing.
        r.agent.cancel();
        waiting.forEach(p -> p.answer().complete(new ClientAnswer.Decided(ApprovalDecision.deny("the user cancelled the run"))));
        return true;
    }

    /** Whether a turn of the agent may ask for consent: it has a block that needs it for a write. */
    private boolean mayAskConsent(Scope scope) {
        return store.blocks().list(scope).stream().map(Block::permission)
                .anyMatch(p -> p == MemoryPermission.PARTNER || p == MemoryPermission.HUMAN);
    }

    @Override
    public CompletionStage<ApprovalDecision> requestApproval(ApprovalRequest request) {
        Optional<String> user = request.context().userId();
        Optional<String> agent = request.context().agentId();
        Running r = user.isPresent() && agent.isPresent() ? running.get(Scope.of(user.get(), agent.get())) : null;
        Optional<String> refused = ClientWaits.cannotAsk(r, "approve the call");
        if (refused.isPresent()) {
            return CompletableFuture.completedFuture(ApprovalDecision.deny(refused.get()));
        }
        return ClientWaits.ask(r, user.get(), request.toolName(), request.arguments(), request.callId(), caps, store.clock());
    }

    /**
     * Asks the client of the agent's running turn for consent to a block write, as an approval of the call that writes:
     * approving it consents, denying it (or cancelling the turn) refuses. Where no client can be asked, the stage fails
     * with the reason ({@link PermissionBroker#cannotAsk}).
     */
    @Override
    public CompletionStage<Boolean> requestConsent(ConsentRequest request) {
        Running r = running.get(Scope.of(request.userId(), request.agentId()));
        Optional<String> refused = ClientWaits.cannotAsk(r, "consent to the write");
        if (refused.isPresent()) {
            return PermissionBroker.cannotAsk(refused.get());
        }
        Optional<MessageToolCall> call = request.callId().isEmpty() ? Optional.empty()
                : r.messageWithCall(request.callId()).flatMap(m -> m.toolCalls().stream()
                        .filter(c -> c.id().equals(request.callId())).findFirst());
        String tool = call.map(MessageToolCall::name).orElse("consent");
        String arguments = call.map(MessageToolCall::arguments)
                .orElseGet(() -> Body.JSON.createObjectNode().put("label", request.label()).put("change", request.change())
                        .toString());
        String callId = request.callId().isEmpty() ? "consent-" + UUID.randomUUID() : request.callId();
        return ClientWaits.ask(r, request.userId(), tool, arguments, callId, caps, store.clock()).thenApply(ApprovalDecision::approved);
    }

    /** Cancels every running turn and waits up to {@code grace} for them to stop. */
    void stop(Duration grace) {
        stopping = true;
        for (Scope scope : List.copyOf(running.keySet())) {
            cancel(scope);
        }
        threads.shutdown();
        approvalThreads.shutdown();
        long deadline = System.nanoTime() + grace.toNanos();
        try {
            threads.awaitTermination(grace.toNanos(), TimeUnit.NANOSECONDS);
            approvalThreads.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            // turns on requests' threads
            while (!running.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!running.isEmpty()) {
            LOG.warn("{} turns did not stop within {}", running.size(), grace);
        }
    }
}

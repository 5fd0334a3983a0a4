package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentEvent;
import dev.engram.agents.AgentListener;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentStreamEvent;
import dev.engram.agents.AgentStreamListener;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.ApprovalHandler;
import dev.engram.framework.ApprovalRequest;
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
import java.util.concurrent.atomic.AtomicInteger;
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
    private final int maxWaitingPerUser;
    private final int maxWaitingPerServer;
    private final AtomicInteger waiting = new AtomicInteger();
    private final ConcurrentHashMap<String, AtomicInteger> waitingByUser = new ConcurrentHashMap<>();

    Turns(MemoryStore store, TurnLock lock, int maxWaitingPerUser, int maxWaitingPerServer) {
        this.store = store;
        this.lock = lock;
        this.maxWaitingPerUser = maxWaitingPerUser;
        this.maxWaitingPerServer = maxWaitingPerServer;
    }

    /** How many turns wait for an approval now. */
    int waiting() {
        return waiting.get();
    }

    /** Where a turn stopped for the request waiting on it. */
    sealed interface Pause {
        /** The turn ended. */
        record Finished(AgentResponse response) implements Pause {
        }

        /** The turn failed (the model failed); what it stored stays. */
        record Failed(RuntimeException error) implements Pause {
        }

        /** A tool call waits for approval; the turn goes on when it is answered. */
        record NeedsApproval(Pending pending) implements Pause {
        }
    }

    /** A tool call waiting for approval. */
    record Pending(String toolName, String arguments, String callId, Instant at, CompletableFuture<ApprovalDecision> answer) {
    }

    /** A running turn of one agent. */
    static final class Running {
        final Agent agent;
        private final LinkedBlockingQueue<Pause> pauses = new LinkedBlockingQueue<>();
        private volatile Pending pending;
        private volatile AgentStreamListener listener;
        /** The messages the turn stored, in order ({@link AgentEvent.MessagesStored}); guarded by itself. */
        private final List<ConversationMessage> stored = new ArrayList<>();
        /** How many of {@link #stored} the waiting requests have shown; guarded by {@link #stored}. */
        private int shown;

        /** Whether the turn runs on its request's thread, which cannot answer the request while it waits. */
        private volatile boolean inline;

        /** Whether the turn delivers a scheduled message: no request waits on it, so no one can approve its calls. */
        private volatile boolean scheduled;

        Running(Agent agent) {
            this.agent = agent;
        }

        Optional<Pending> pending() {
            return Optional.ofNullable(pending);
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
     * {@code streamed}); the caller hears of it through {@link Running#next()}. A streamed turn, or one of an agent
     * that may ask for approval, runs on a thread of its own and this returns at once; any other runs on the
     * calling thread and has ended when this returns. A lock that cannot be taken (the server stopping, the
     * database unreachable) ends it with a {@link Pause.Failed} holding the request's answer.
     *
     * @throws ApiException 409 if the agent's running turn waits for an approval; 503 if the server is stopping
     */
    Running start(Agent agent, String session, TurnRequest.Input.Message message, boolean streamed,
            AgentStreamListener listener) {
        if (stopping) {
            throw stoppingError();
        }
        Running current = running.get(agent.scope());
        if (current != null && current.pending != null) {
            throw ApiException.conflict("Agent '" + agent.id() + "' is waiting for the approval of a call to '"
                    + current.pending.toolName() + "' (tool_call_id " + current.pending.callId()
                    + "); answer it with an approval message before sending another message.");
        }
        Running r = new Running(agent);
        r.listener = listener;
        if (agent.mayRequestApproval() || mayAskConsent(agent.scope())) {
            approvalThreads.execute(() -> run(r, session, message, streamed));
        } else if (streamed) {
            threads.execute(() -> run(r, session, message, streamed));
        } else {
            r.inline = true;
            run(r, session, message, false);
            // A cancel that came as the turn ended may have interrupted this thread after the agent looked.
            Thread.interrupted();
        }
        return r;
    }

    private void run(Running r, String session, TurnRequest.Input.Message message, boolean streamed) {
        Scope scope = r.agent.scope();
        try (TurnLock.Hold hold = lock.acquire(scope)) {
            if (stopping) {
                r.pauses.add(new Pause.Failed(stoppingError()));
                return;
            }
            running.put(scope, r);
            Pause end;
            try {
                AgentResponse response = streamed
                        ? r.agent.stream(session, message.text(), message.images(), event -> forward(r, event))
                        : r.agent.send(session, message.text(), message.images());
                end = new Pause.Finished(response);
            } catch (RuntimeException e) {
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
    AgentResponse runScheduled(Agent agent, String session, String message) {
        if (stopping) {
            throw new CancellationException("the server is stopping");
        }
        Running r = new Running(agent);
        r.scheduled = true;
        Scope scope = agent.scope();
        try (TurnLock.Hold hold = lock.acquire(scope)) {
            if (stopping) {
                throw new CancellationException("the server is stopping");
            }
            running.put(scope, r);
            try {
                return agent.send(session, message);
            } finally {
                running.remove(scope, r);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the turn lock of agent " + scope);
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

    /** Answers the running turn's pending approval; false if there is none with that call id (or any, if blank). */
    boolean answer(Running r, String callId, ApprovalDecision decision) {
        Pending p = r.pending;
        if (p == null || (!callId.isEmpty() && !callId.equals(p.callId()))) {
            return false;
        }
        r.pending = null;
        p.answer().complete(decision);
        return true;
    }

    /** Cancels the agent's running turn (and denies a pending approval); false if none runs here. */
    boolean cancel(Scope scope) {
        Running r = running.get(scope);
        if (r == null) {
            return false;
        }
        answer(r, "", ApprovalDecision.deny("the user cancelled the run"));
        r.agent.cancel();
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
        Optional<String> refused = cannotAsk(r, "approve the call");
        if (refused.isPresent()) {
            return CompletableFuture.completedFuture(ApprovalDecision.deny(refused.get()));
        }
        return ask(r, user.get(), request.toolName(), request.arguments(), request.callId());
    }

    /**
     * Asks the client of the agent's running turn for consent to a block write, as an approval of the call that writes:
     * approving it consents, denying it (or cancelling the turn) refuses. Where no client can be asked, the stage fails
     * with the reason ({@link PermissionBroker#cannotAsk}).
     */
    @Override
    public CompletionStage<Boolean> requestConsent(ConsentRequest request) {
        Running r = running.get(Scope.of(request.userId(), request.agentId()));
        Optional<String> refused = cannotAsk(r, "consent to the write");
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
        return ask(r, request.userId(), tool, arguments, callId).thenApply(ApprovalDecision::approved);
    }

    /** Why the running turn's client cannot be asked to {@code what}; empty when it can. */
    private static Optional<String> cannotAsk(Running r, String what) {
        if (r == null) {
            return Optional.of("no client of the server can be asked");
        }
        if (r.scheduled) {
            return Optional.of("this turn delivers a scheduled message, and no client waits on it to " + what);
        }
        if (r.inline) {
            // The agent's tools or blocks changed during a turn that started without any that ask.
            return Optional.of("the approval rules changed during this turn; the next message's turn can ask");
        }
        return Optional.empty();
    }

    /** Pauses the turn with a pending approval of the call and returns its answer (a denial at once beyond the caps). */
    private CompletionStage<ApprovalDecision> ask(Running r, String user, String tool, String arguments, String callId) {
        Optional<String> full = reserveWaiting(user);
        if (full.isPresent()) {
            return CompletableFuture.completedFuture(ApprovalDecision.deny(full.get()));
        }
        Pending p = new Pending(tool, arguments, callId, store.clock().instant(), new CompletableFuture<>());
        // answered, denied, cancelled or timed out: the turn no longer waits
        p.answer().whenComplete((decision, error) -> releaseWaiting(user));
        r.pending = p;
        r.pauses.add(new Pause.NeedsApproval(p));
        return p.answer();
    }

    /** Counts a turn of the user's as waiting; empty if the caps allow it, else why not. */
    private Optional<String> reserveWaiting(String user) {
        if (waiting.incrementAndGet() > maxWaitingPerServer) {
            waiting.decrementAndGet();
            return Optional.of("the server already has " + maxWaitingPerServer + " turns waiting for an approval, the most "
                    + "it allows; answer or cancel waiting turns, then try again");
        }
        AtomicInteger mine = waitingByUser.computeIfAbsent(user, u -> new AtomicInteger());
        if (mine.incrementAndGet() > maxWaitingPerUser) {
            mine.decrementAndGet();
            waiting.decrementAndGet();
            return Optional.of("user '" + user + "' already has " + maxWaitingPerUser + " turns waiting for an approval, "
                    + "the most allowed per user; answer or cancel one of them, then try again");
        }
        return Optional.empty();
    }

    private void releaseWaiting(String user) {
        waitingByUser.get(user).decrementAndGet();
        waiting.decrementAndGet();
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

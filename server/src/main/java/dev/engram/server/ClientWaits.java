package dev.engram.server;

import dev.engram.agents.ClientAnswer;
import dev.engram.agents.ClientCall;
import dev.engram.agents.ClientTools;
import dev.engram.framework.ApprovalDecision;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A turn's pause for its client, beside {@link Turns}: the calls of one step that wait for the client (approvals, and
 * client tools' results) become the turn's {@link Turns.Pending} calls, shown together as {@code approval_request_message}s
 * and answered together by one approval message ({@link ApprovalAnswers}). The pause counts as one waiting turn within
 * the server's caps ({@link WaitingCaps}); beyond a cap its calls are refused at once, saying why.
 */
final class ClientWaits {
    private ClientWaits() {
    }

    /**
     * Pauses {@code turn} until every call is answered; the answers by call id. Cancelling the returned stage (the turn
     * was cancelled, or stopped waiting) ends the pause.
     */
    static CompletableFuture<Map<String, ClientAnswer>> pause(Turns.Running turn, String user, List<ClientCall> calls,
            WaitingCaps caps, Clock clock) {
        Optional<String> full = caps.reserve(user);
        if (full.isPresent()) {
            return CompletableFuture.completedFuture(refusals(calls, full.get()));
        }
        Instant now = clock.instant();
        List<Turns.Pending> waiting = calls.stream().map(c -> new Turns.Pending(c.toolName(), c.arguments(), c.callId(), now,
                c.kind(), new CompletableFuture<ClientAnswer>())).toList();
        CompletableFuture<?>[] answers = waiting.stream().map(Turns.Pending::answer).toArray(CompletableFuture[]::new);
        CompletableFuture<Void> all = CompletableFuture.allOf(answers);
        // answered, cancelled or timed out: the turn no longer waits
        all.whenComplete((v, e) -> {
            caps.release(user);
            if (turn.pending.equals(waiting)) {
                turn.pending = List.of();
            }
        });
        CompletableFuture<Map<String, ClientAnswer>> out = all.thenApply(v -> {
            Map<String, ClientAnswer> byId = new LinkedHashMap<>();
            waiting.forEach(p -> byId.put(p.callId(), p.answer().join()));
            return byId;
        });
        out.whenComplete((v, e) -> {
            if (out.isCancelled()) {
                waiting.forEach(p -> p.answer().cancel(false));
            }
        });
        turn.pending = waiting;
        turn.pauses.add(new Turns.Pause.NeedsApproval(waiting));
        return out;
    }

    /** Why the running turn's client cannot be asked to {@code what}; empty when it can. */
    static Optional<String> cannotAsk(Turns.Running r, String what) {
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

    /**
     * Pauses the turn with a pending approval of one call and returns its decision (a denial at once beyond the caps).
     * The pipeline cancels the decision it waits on when it stops waiting: that ends the pause.
     */
    static CompletionStage<ApprovalDecision> ask(Turns.Running r, String user, String tool, String arguments, String callId,
            WaitingCaps caps, Clock clock) {
        ClientCall call = new ClientCall(callId, tool, arguments, ClientCall.Kind.APPROVE, Optional.empty());
        CompletableFuture<Map<String, ClientAnswer>> answers = pause(r, user, List.of(call), caps, clock);
        CompletableFuture<ApprovalDecision> decision = answers.thenApply(a -> a.get(callId) instanceof ClientAnswer.Decided d
                ? d.decision() : ApprovalDecision.deny("the client answered with a result instead"));
        decision.whenComplete((d, e) -> {
            if (decision.isCancelled()) {
                answers.cancel(false);
            }
        });
        return decision;
    }

    /** Pauses the turn until its client answers the step's calls that wait for it ({@link ClientTools}). */
    static CompletionStage<Map<String, ClientAnswer>> awaitClient(Turns.Running r, List<ClientCall> calls, WaitingCaps caps,
            Clock clock) {
        Optional<String> refused = cannotAsk(r, "answer the calls");
        if (refused.isPresent()) {
            return CompletableFuture.completedFuture(refusals(calls, refused.get()));
        }
        return pause(r, r.agent.userId(), calls, caps, clock);
    }

    /** Every call refused with {@code reason}: no client can be asked. */
    static Map<String, ClientAnswer> refusals(List<ClientCall> calls, String reason) {
        Map<String, ClientAnswer> byId = new LinkedHashMap<>();
        calls.forEach(c -> byId.put(c.callId(), new ClientAnswer.Decided(ApprovalDecision.deny(reason))));
        return byId;
    }
}

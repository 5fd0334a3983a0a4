package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentException;
import dev.engram.framework.model.ModelException;
import dev.engram.framework.model.ModelHttpException;
import dev.engram.framework.model.ModelTimeoutException;
import dev.engram.memory.Run;
import io.helidon.http.Status;
import java.util.Optional;

/**
 * A turn in Letta's terms, beside {@link Turns} which runs it: starting the turn a {@link TurnRequest} asks for or
 * resuming the one its approval answers, waiting for the turn's next pause, and the answer to a turn that failed.
 * Shared by the JSON answer ({@link MessageRoutes}) and the stream ({@link SseTurn}).
 */
final class TurnFlow {
    private TurnFlow() {
    }

    /**
     * Starts the turn a message asks for in {@code session} (the agent's own {@code default}, or a conversation's id), or
     * resumes the one an approval answers (directing its stream events to {@code listener}).
     */
    static Turns.Running begin(Api api, Agent agent, String session, TurnRequest.Input input, boolean streamed,
            dev.engram.agents.AgentStreamListener listener, Run run) {
        return switch (input) {
            case TurnRequest.Input.Message m -> {
                api.quotas.turn(agent.userId());
                yield api.turns.start(agent, session, m, streamed, listener, run.id());
            }
            case TurnRequest.Input.Approval a -> {
                // the turn goes on for this request: its next steps are this run's
                api.turns.running(agent.scope()).ifPresent(r -> r.runId = run.id());
                yield ApprovalAnswers.apply(api, agent, a, listener);
            }
        };
    }

    static Turns.Pause await(Turns.Running turn) {
        try {
            return turn.next();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.of(Status.SERVICE_UNAVAILABLE_503, "The server is stopping.");
        }
    }

    /**
     * The answer to a turn that failed: the request's own answer when the server refused it (stopping, no lock); a
     * 503 or 507 when the memory store failed ({@link StoreFailures}); a 504 when the
     * agent's model ran out of its timeout; a 502 when it failed otherwise, saying
     * only that and the provider's status, since the provider's own error text (or what a model script's file held)
     * is no client's to read; Engram's own refusal of the turn as it wrote it; else a 500. Every detail but Engram's
     * own sentence goes to the log only, under an incident id.
     */
    static ApiException turnFailed(RuntimeException e) {
        if (e instanceof ApiException api) {
            return api;
        }
        Optional<ApiException> store = StoreFailures.answerTurn(e);
        if (store.isPresent()) {
            return store.get();
        }
        if (cause(e, ModelTimeoutException.class).isPresent()) {
            return ApiException.of(Status.GATEWAY_TIMEOUT_504, "The agent's model did not answer in time: "
                    + Incidents.clientText(e, "A turn") + " What the agent stored before the failure stays; send the "
                    + "message again to retry.");
        }
        Optional<ModelException> model = cause(e, ModelException.class);
        if (model.isPresent() || (e instanceof AgentException && e.getCause() != null)) {
            String incident = Incidents.unexpected("A turn's model failed", e);
            String status = model.filter(ModelHttpException.class::isInstance).map(m -> " (the provider answered HTTP "
                    + ((ModelHttpException) m).status() + ")").orElse("");
            return ApiException.of(Status.BAD_GATEWAY_502, "The agent's model failed" + status + " (incident " + incident
                    + "; the server's log has the details). What the agent stored before the failure stays; send the "
                    + "message again to retry.");
        }
        if (e instanceof AgentException) {
            return ApiException.of(Status.BAD_GATEWAY_502, Incidents.clientText(e, "A turn") + " What the agent stored before the failure "
                    + "stays; send the message again to retry.");
        }
        String incident = Incidents.unexpected("A turn failed", e);
        return ApiException.of(Status.INTERNAL_SERVER_ERROR_500, "The turn failed (incident " + incident
                + "; the server's log has the details). What the agent stored before the failure stays.");
    }

    private static <T extends Throwable> Optional<T> cause(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return Optional.of(type.cast(t));
            }
        }
        return Optional.empty();
    }
}

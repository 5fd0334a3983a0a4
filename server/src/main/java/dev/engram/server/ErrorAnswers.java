package dev.engram.server;

import dev.engram.agents.AgentException;
import dev.engram.agents.AgentNotFoundException;
import dev.engram.memory.DuplicateException;
import dev.engram.memory.LimitExceededException;
import dev.engram.memory.NotFoundException;
import dev.engram.memory.QuotaExceededException;
import dev.engram.memory.StorageFullException;
import dev.engram.memory.StorageUnavailableException;
import dev.engram.memory.VersionConflictException;
import io.helidon.http.HttpException;
import io.helidon.http.Status;
import io.helidon.webserver.http.ErrorHandler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.function.BiFunction;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every failure as Letta's {@code {"detail": ...}}, plus the request's {@code request_id}; the detail is Engram's own
 * sentence (a message in Java's wording is replaced by an incident id, see {@link Incidents#clientText}); anything
 * unexpected is logged (its trace once per kind per minute) and answered without its trace; a client that closed its
 * connection is a debug line. Error handlers run after the routing filters have returned, so each one puts the
 * request's id back in the log's context while it runs.
 */
final class ErrorAnswers {
    private ErrorAnswers() {
    }

    /** Registers the answers on a routing. */
    static void register(HttpRouting.Builder routing) {
        on(routing, ApiException.class, (req, e) -> e);
        on(routing, AgentNotFoundException.class, (req, e) -> ApiException.notFound(text(req, e)));
        on(routing, NotFoundException.class, (req, e) -> ApiException.notFound(text(req, e)));
        on(routing, DuplicateException.class, (req, e) -> ApiException.conflict(text(req, e)));
        on(routing, VersionConflictException.class, (req, e) -> ApiException.conflict(text(req, e)));
        // 403, not 429: a quota does not clear with time, so a client must not retry (Letta's clients retry 429)
        on(routing, QuotaExceededException.class, (req, e) -> ApiException.forbidden(text(req, e)));
        on(routing, LimitExceededException.class, (req, e) -> ApiException.badRequest(text(req, e)));
        on(routing, AgentException.class, (req, e) -> ApiException.badRequest(text(req, e)));
        on(routing, IllegalArgumentException.class, (req, e) -> ApiException.badRequest(text(req, e)));
        on(routing, StorageUnavailableException.class, (req, e) -> StoreFailures.answer(e).orElseThrow());
        on(routing, StorageFullException.class, (req, e) -> StoreFailures.answer(e).orElseThrow());
        // Helidon's own refusals (no route for a path outside /v1, a malformed request) keep their status.
        on(routing, HttpException.class, (req, e) -> ApiException.of(e.status(), e.status() == Status.NOT_FOUND_404
                ? "Not found: " + req.prologue().method().text() + " " + req.path().path() + "." : text(req, e)));
        routing.error(Throwable.class, (req, res, e) -> RequestIds.during(req, () -> {
            String what = req.prologue().method().text() + " " + req.path().path();
            if (Incidents.isClientAbort(e)) {
                Incidents.clientAborted(what, e);
                return;
            }
            String incident = Incidents.unexpected("Request " + what + " failed", e);
            send(req, res, ApiException.of(Status.INTERNAL_SERVER_ERROR_500, "Internal server error (incident " + incident
                    + "; the server's log has the details)."));
        }));
    }

    private static <T extends Throwable> void on(HttpRouting.Builder routing, Class<T> type,
            BiFunction<ServerRequest, T, ApiException> answer) {
        ErrorHandler<T> handler = (req, res, e) -> RequestIds.during(req, () -> send(req, res, answer.apply(req, e)));
        routing.error(type, handler);
    }

    private static String text(ServerRequest req, Throwable e) {
        return Incidents.clientText(e, req.prologue().method().text() + " " + req.path().path());
    }

    private static void send(ServerRequest req, ServerResponse res, ApiException e) {
        if (res.isSent()) {
            return;
        }
        Api.json(res, e.status(), body(req, e));
    }

    /** The error's body with the request's id. */
    static ObjectNode body(ServerRequest req, ApiException e) {
        return e.body().put("request_id", RequestIds.of(req));
    }
}

package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;

import io.helidon.http.Method;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Letta's status endpoints that mean something on a self-hosted Engram server: {@code GET /v1/ready/} (Letta's
 * {@code Health}, {@code version} and {@code status}, answering as {@code /readyz} does: 200 {@code ready}, or 503 with
 * the reason), {@code GET /v1/metadata/status} (Engram has no projects: {@code current_project_id} is null), and
 * {@code POST /v1/metadata/feedback} (a user's feedback goes to the operator, in the server's log, with the user's id).
 */
final class StatusRoutes {
    private static final Logger LOG = LoggerFactory.getLogger("dev.engram.server.feedback");
    private static final int MAX_FEEDBACK = 10_000;
    private static final Set<String> FEATURES = Set.of("letta-code", "sdk");

    private final OpsRoutes ops;

    StatusRoutes(OpsRoutes ops) {
        this.ops = ops;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.open(Method.GET, "/v1/ready", this::ready))
                .add(Route.caller(GET, "/v1/metadata/status", (caller, req, res) ->
                        Api.json(res, Body.JSON.createObjectNode().putNull("current_project_id"))))
                .add(Route.caller(POST, "/v1/metadata/feedback", this::feedback))
                .list();
    }

    private void ready(ServerRequest req, ServerResponse res) {
        OpsRoutes.Readiness readiness = ops.readiness();
        String version = EngramServer.class.getPackage().getImplementationVersion();
        ObjectNode body = readiness.body().deepCopy();
        body.put("version", version == null ? "dev" : version);
        Api.json(res, readiness.status(), body);
    }

    private void feedback(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String message = body.requiredString("message");
        if (message.isBlank() || message.length() > MAX_FEEDBACK) {
            throw body.problem("value_error", "The message holds 1 to " + MAX_FEEDBACK + " characters", "message");
        }
        String feature = body.string("feature").orElse("letta-code");
        if (!FEATURES.contains(feature)) {
            throw body.problem("enum", "Input should be 'letta-code' or 'sdk'", "feature");
        }
        LOG.info("Feedback from user {} on {} (agent {}, version {}): {}", caller.user().orElse("(admin key)"), feature,
                body.string("agent_id").orElse("-"), body.string("version").orElse("-"), message);
        Api.json(res, Body.JSON.createObjectNode().put("success", true));
    }
}

package dev.engram.server;

import dev.engram.memory.AgentRecord;
import dev.engram.memory.Identity;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/identities}: an identity is an Engram user ({@code identifier_key} is the user's id) with a
 * display name and kind. A user's key sees and manages only its own identity; an admin key, every one.
 */
final class IdentityRoutes {
    private static final Set<String> TYPES = Set.of("user", "org", "other");

    private final Api api;

    IdentityRoutes(Api api) {
        this.api = api;
    }

    void register(HttpRouting.Builder r) {
        r.get("/v1/identities", this::list);
        r.get("/v1/identities/", this::list);
        r.post("/v1/identities", (req, res) -> upsert(req, res, false));
        r.post("/v1/identities/", (req, res) -> upsert(req, res, false));
        r.put("/v1/identities", (req, res) -> upsert(req, res, true));
        r.put("/v1/identities/", (req, res) -> upsert(req, res, true));
        r.get("/v1/identities/{identity_id}", this::retrieve);
        r.patch("/v1/identities/{identity_id}", this::modify);
        r.delete("/v1/identities/{identity_id}", this::delete);
    }

    private ObjectNode view(Identity identity) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", Identities.id(identity.userId()));
        o.put("identifier_key", identity.userId());
        o.put("name", identity.name());
        o.put("identity_type", identity.type());
        o.putNull("project_id");
        api.store.agents().list(identity.userId()).stream().map(AgentRecord::scope)
                .forEach(s -> o.withArray("agent_ids").add(s.agentId()));
        o.withArray("agent_ids");
        o.putArray("block_ids");
        o.putArray("properties");
        o.put("created_at", LettaViews.date(identity.createdAt()));
        return o;
    }

    /** The caller's identity of that id; a 404 when it does not exist or belongs to another user. */
    private Identity identity(Caller caller, String identityId) {
        String user = Identities.userOf(identityId);
        return api.store.identities().get(user).filter(i -> caller.sees(i.userId()))
                .orElseThrow(() -> ApiException.notFound("Identity '" + identityId + "' not found."));
    }

    private void list(ServerRequest req, ServerResponse res) {
        Caller caller = api.caller(req);
        Pages pages = Pages.of(req, 50, false);
        Optional<String> name = Query.string(req, "name");
        Optional<String> key = Query.string(req, "identifier_key");
        Optional<String> type = Query.string(req, "identity_type");
        List<Identity> identities = new ArrayList<>(api.store.identities().list());
        identities.removeIf(i -> !caller.sees(i.userId()) || name.map(n -> !n.equals(i.name())).orElse(false)
                || key.map(k -> !k.equals(i.userId())).orElse(false) || type.map(t -> !t.equals(i.type())).orElse(false));
        Api.json(res, pages.page(identities, i -> Identities.id(i.userId()), "identity").stream().map(this::view).toList());
    }

    private void upsert(ServerRequest req, ServerResponse res, boolean replace) {
        Caller caller = api.caller(req);
        Body body = Api.body(req);
        String user = body.requiredString("identifier_key");
        String name = body.requiredString("name");
        String type = type(body, body.requiredString("identity_type"));
        if (!caller.sees(user)) {
            throw ApiException.forbidden("A user's key creates only its own identity (identifier_key '"
                    + caller.user().orElseThrow() + "'); an admin key creates the others.");
        }
        if (!replace && api.store.identities().get(user).isPresent()) {
            throw ApiException.conflict("An identity with identifier_key '" + user + "' exists; update it with PATCH "
                    + "/v1/identities/" + Identities.id(user) + " or PUT /v1/identities/.");
        }
        Identity identity = put(body, user, name, type);
        Api.json(res, view(identity));
    }

    private Identity put(Body body, String user, String name, String type) {
        try {
            return api.store.identities().put(user, name, type);
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", e.getMessage(), "body");
        }
    }

    private static String type(Body body, String type) {
        if (!TYPES.contains(type)) {
            throw body.problem("enum", "Input should be 'org', 'user' or 'other'", "identity_type");
        }
        return type;
    }

    private void retrieve(ServerRequest req, ServerResponse res) {
        Caller caller = api.caller(req);
        Api.json(res, view(identity(caller, req.path().pathParameters().get("identity_id"))));
    }

    private void modify(ServerRequest req, ServerResponse res) {
        Caller caller = api.caller(req);
        Identity identity = identity(caller, req.path().pathParameters().get("identity_id"));
        Body body = Api.body(req);
        if (body.string("identifier_key").filter(k -> !k.equals(identity.userId())).isPresent()) {
            throw body.problem("value_error", "An identity's identifier_key is its user's id and does not change", "identifier_key");
        }
        String name = body.string("name").orElse(identity.name());
        String type = body.string("identity_type").map(t -> type(body, t)).orElse(identity.type());
        Api.json(res, view(put(body, identity.userId(), name, type)));
    }

    private void delete(ServerRequest req, ServerResponse res) {
        Caller caller = api.caller(req);
        Identity identity = identity(caller, req.path().pathParameters().get("identity_id"));
        api.store.identities().delete(identity.userId());
        Api.json(res, Status.OK_200, Body.JSON.createObjectNode());
    }
}

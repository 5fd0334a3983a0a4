package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;
import static io.helidon.http.Method.PUT;

import dev.engram.memory.AgentRecord;
import dev.engram.memory.DuplicateException;
import dev.engram.memory.Identity;
import dev.engram.memory.Scope;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/identities}: an identity is an Engram user ({@code identifier_key} is the user's id) with a
 * display name and kind; its {@code block_ids} are the user's standalone blocks ({@code POST /v1/blocks/}). A user's key sees and manages only its own identity; an admin key, every one.
 * Its {@code properties} ({@link IdentityProperties}) are set by create and upsert (replaced whole) and by {@code PATCH}
 * (merged by key, as Letta merges them), stored with the other fields in one write.
 */
final class IdentityRoutes {
    private static final Set<String> TYPES = Set.of("user", "org", "other");

    private final Api api;

    IdentityRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/identities", this::list))
                .twin(Route.caller(POST, "/v1/identities", (caller, req, res) -> upsert(caller, req, res, false)))
                .twin(Route.caller(PUT, "/v1/identities", (caller, req, res) -> upsert(caller, req, res, true)))
                .add(Route.caller(GET, "/v1/identities/{identity_id}", this::retrieve))
                .add(Route.caller(PATCH, "/v1/identities/{identity_id}", this::modify))
                .add(Route.caller(DELETE, "/v1/identities/{identity_id}", this::delete))
                .list();
    }

    /** Letta's {@code Identity}. */
    ObjectNode view(Identity identity) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", Identities.id(identity.userId()));
        o.put("identifier_key", identity.userId());
        o.put("name", identity.name());
        o.put("identity_type", identity.type());
        o.putNull("project_id");
        api.store.agents().list(identity.userId()).stream().map(AgentRecord::scope)
                .forEach(s -> o.withArray("agent_ids").add(s.agentId()));
        o.withArray("agent_ids");
        ArrayNode blocks = o.putArray("block_ids");
        api.store.blocks().list(Scope.of(identity.userId(), Ids.BLOCK_HOLDER)).stream()
                .filter(b -> b.ownerAgentId().equals(Ids.BLOCK_HOLDER)).forEach(b -> blocks.add(Ids.block(b.ownerAgentId(), b.label())));
        o.set("properties", properties(identity));
        o.put("created_at", LettaViews.date(identity.createdAt()));
        return o;
    }

    /** An identity's properties as stored: the server stores a JSON list; anything else (a store written by hand) is none. */
    private static JsonNode properties(Identity identity) {
        return IdentityProperties.list(identity.properties());
    }

    /** The caller's identity of that id; a 404 when it does not exist or belongs to another user. */
    Identity identity(Caller caller, String identityId) {
        String user = Identities.userOf(identityId);
        return api.store.identities().get(user).filter(i -> caller.sees(i.userId()))
                .orElseThrow(() -> ApiException.notFound("Identity '" + identityId + "' not found."));
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, false);
        Optional<String> name = Query.string(req, "name");
        Optional<String> key = Query.string(req, "identifier_key");
        Optional<String> type = Query.string(req, "identity_type");
        List<Identity> identities = new ArrayList<>(api.store.identities().list());
        identities.removeIf(i -> !caller.sees(i.userId()) || name.map(n -> !n.equals(i.name())).orElse(false)
                || key.map(k -> !k.equals(i.userId())).orElse(false) || type.map(t -> !t.equals(i.type())).orElse(false));
        Api.json(res, pages.page(identities, i -> Identities.id(i.userId()), "identity").stream().map(this::view).toList());
    }

    private void upsert(Caller caller, ServerRequest req, ServerResponse res, boolean replace) {
        Body body = Api.body(req);
        String user = body.requiredString("identifier_key");
        String name = body.requiredString("name");
        String type = type(body, body.requiredString("identity_type"));
        Optional<String> properties = properties(body);
        if (!caller.sees(user)) {
            throw ApiException.forbidden("A user's key creates only its own identity (identifier_key '"
                    + caller.user().orElseThrow() + "'); an admin key creates the others.");
        }
        Identity stored;
        if (!replace) {
            try {
                stored = checked(body, () -> api.store.identities().create(user, name, type, properties.orElse("[]")));
            } catch (DuplicateException e) {
                throw ApiException.conflict("An identity with identifier_key '" + user + "' exists; update it with PATCH "
                        + "/v1/identities/" + Identities.id(user) + " or PUT /v1/identities/.");
            }
        } else {
            // Without properties in the body, an upsert keeps the stored ones: the store reads and writes them together.
            stored = checked(body, () -> properties.isPresent() ? api.store.identities().put(user, name, type, properties.get())
                    : api.store.identities().put(user, name, type));
        }
        Api.json(res, view(stored));
    }

    /** The body's {@code properties}, checked, as stored text; empty when the body names none. */
    private static Optional<String> properties(Body body) {
        return body.raw("properties").map(list -> IdentityProperties.checked(list, body.location("properties")));
    }

    /** Runs a store call, answering the store's refusal of a value as a 422 about the body. */
    private static Identity checked(Body body, Supplier<Identity> write) {
        try {
            return write.get();
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", Incidents.clientText(e, "an identity"), "body");
        }
    }

    private static String type(Body body, String type) {
        if (!TYPES.contains(type)) {
            throw body.problem("enum", "Input should be 'org', 'user' or 'other'", "identity_type");
        }
        return type;
    }

    private void retrieve(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, view(identity(caller, req.path().pathParameters().get("identity_id"))));
    }

    private void modify(Caller caller, ServerRequest req, ServerResponse res) {
        Identity identity = identity(caller, req.path().pathParameters().get("identity_id"));
        Body body = Api.body(req);
        if (body.string("identifier_key").filter(k -> !k.equals(identity.userId())).isPresent()) {
            throw body.problem("value_error", "An identity's identifier_key is its user's id and does not change", "identifier_key");
        }
        Optional<String> name = body.string("name");
        Optional<String> type = body.string("identity_type").map(t -> type(body, t));
        Optional<String> properties = properties(body);
        // The merge reads the properties stored at the moment of the write, so that two PATCHes at once both land.
        Api.json(res, view(checked(body, () -> api.store.identities().update(identity.userId(), current -> new Identity(
                current.userId(), name.orElse(current.name()), type.orElse(current.type()), current.createdAt(),
                properties.map(p -> IdentityProperties.merged(current.properties(), p)).orElse(current.properties()))))));
    }

    private void delete(Caller caller, ServerRequest req, ServerResponse res) {
        Identity identity = identity(caller, req.path().pathParameters().get("identity_id"));
        api.store.identities().delete(identity.userId());
        Api.json(res, Status.OK_200, Body.JSON.createObjectNode());
    }
}

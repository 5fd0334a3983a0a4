package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.memory.ProviderRecord;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/providers}: model providers an admin key registers (Letta's BYOK providers), of the types Engram speaks
 * ({@code openai}, {@code anthropic}, {@code google_ai}, {@code ollama}), their key sealed with the operator's key
 * ({@link ProviderSecrets}) and never shown again; {@code check} asks the provider for its models with the key. A
 * registered provider's models are listed by {@code GET /v1/models/} and usable as far as the operator's model policy
 * allows ({@link Providers}). A user's key gets 403: providers are the server's, not a user's.
 */
final class ProviderRoutes {
    private final Api api;
    private final Providers providers;

    ProviderRoutes(Api api, Providers providers) {
        this.api = api;
        this.providers = providers;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/providers", this::list))
                .twin(Route.caller(POST, "/v1/providers", this::create))
                .add(Route.caller(POST, "/v1/providers/check", this::checkNew))
                .add(Route.caller(GET, "/v1/providers/{provider_id}", this::retrieve))
                .add(Route.caller(PATCH, "/v1/providers/{provider_id}", this::modify))
                .add(Route.caller(DELETE, "/v1/providers/{provider_id}", this::delete))
                .add(Route.caller(POST, "/v1/providers/{provider_id}/check", this::check))
                .add(Route.caller(PATCH, "/v1/providers/{provider_id}/refresh", this::refresh))
                .list();
    }

    private static void admin(Caller caller) {
        if (caller.user().isPresent()) {
            throw ApiException.forbidden("Providers are the server's: only an admin key manages them (engram keys create "
                    + "--admin).");
        }
    }

    private void create(Caller caller, ServerRequest req, ServerResponse res) {
        admin(caller);
        Body body = Api.body(req);
        String name = body.requiredString("name").strip();
        if (name.isEmpty() || name.length() > 100 || name.chars().anyMatch(Character::isISOControl)) {
            throw body.problem("value_error", "A provider name is 1 to 100 characters, without control characters", "name");
        }
        String type = type(body);
        String key = body.requiredString("api_key");
        String base = baseUrl(body);
        unsupported(body);
        if (api.store.providers().list().stream().anyMatch(p -> p.name().equals(name))) {
            throw ApiException.conflict("A provider named '" + name + "' exists; choose another name, or change its key "
                    + "with PATCH /v1/providers/{id}.");
        }
        ProviderRecord p = api.store.providers().create(name, type, base, providers.secrets().seal(name, key));
        Api.json(res, view(p));
    }

    private static String type(Body body) {
        String type = body.requiredString("provider_type");
        if (!ProviderModels.TYPES.containsKey(type)) {
            throw body.problem("enum", "Engram registers providers of type openai, anthropic, google_ai or ollama, not '"
                    + type + "'", "provider_type");
        }
        return type;
    }

    /** The body's {@code base_url}: an http(s) URL with a host, or empty for the provider's own endpoint. */
    private static String baseUrl(Body body) {
        String base = body.string("base_url").orElse("").strip();
        if (base.isEmpty()) {
            return "";
        }
        try {
            URI uri = URI.create(base);
            if ((!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) || uri.getHost() == null
                    || uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
                throw new IllegalArgumentException(base);
            }
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", "base_url is an http(s) URL with a host and no user, query or fragment, "
                    + "such as http://127.0.0.1:8080/v1", "base_url");
        }
        return base.replaceAll("/+$", "");
    }

    /** Letta's fields for providers Engram does not speak (Bedrock, Azure) are refused rather than dropped. */
    private static void unsupported(Body body) {
        for (String field : List.of("access_key", "region", "api_version")) {
            if (body.has(field)) {
                throw body.problem("value_error", "Engram's providers take name, provider_type, api_key and base_url; "
                        + field + " is not supported", field);
            }
        }
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        admin(caller);
        Pages pages = Pages.of(req, 50, true);
        Optional<String> name = Query.string(req, "name");
        Optional<String> type = Query.string(req, "provider_type");
        List<ProviderRecord> all = api.store.providers().list().stream()
                .filter(p -> name.map(p.name()::equals).orElse(true) && type.map(p.type()::equals).orElse(true)).toList();
        Api.json(res, pages.page(all, ProviderRecord::id, "provider").stream().map(ProviderRoutes::view).toList());
    }

    private ProviderRecord provider(ServerRequest req) {
        String id = req.path().pathParameters().get("provider_id");
        return api.store.providers().get(id).orElseThrow(() -> ApiException.notFound("Provider '" + id + "' not found."));
    }

    private void retrieve(Caller caller, ServerRequest req, ServerResponse res) {
        admin(caller);
        Api.json(res, view(provider(req)));
    }

    private void modify(Caller caller, ServerRequest req, ServerResponse res) {
        admin(caller);
        ProviderRecord p = provider(req);
        Body body = Api.body(req);
        String key = body.requiredString("api_key");
        String base = body.has("base_url") ? baseUrl(body) : p.baseUrl();
        unsupported(body);
        Api.json(res, view(api.store.providers().update(p.id(), base, providers.secrets().seal(p.name(), key))));
    }

    private void delete(Caller caller, ServerRequest req, ServerResponse res) {
        admin(caller);
        api.store.providers().delete(provider(req).id());
        Api.json(res, Body.JSON.createObjectNode());
    }

    /** Checks credentials before they are registered: the provider lists its models with them. */
    private void checkNew(Caller caller, ServerRequest req, ServerResponse res) {
        admin(caller);
        Body body = Api.body(req);
        String type = type(body);
        String key = body.requiredString("api_key");
        String base = baseUrl(body);
        unsupported(body);
        Api.json(res, checked(type, base, key));
    }

    private void check(Caller caller, ServerRequest req, ServerResponse res) {
        admin(caller);
        ProviderRecord p = provider(req);
        Api.json(res, checked(p.type(), p.baseUrl(), key(p)));
    }

    /**
     * Letta's refresh: the provider's models are listed again now (a 400 saying why when it does not answer), and the
     * provider is returned. Engram keeps no copy of a provider's models: {@code GET /v1/models/} asks the provider each time.
     */
    private void refresh(Caller caller, ServerRequest req, ServerResponse res) {
        admin(caller);
        ProviderRecord p = provider(req);
        checked(p.type(), p.baseUrl(), key(p));
        Api.json(res, view(p));
    }

    private String key(ProviderRecord p) {
        return providers.secrets().open(p.name(), p.sealedApiKey()).orElseThrow(() -> ApiException.conflict(
                "The key of provider '" + p.name() + "' does not open with this server's " + ProviderSecrets.KEY_VARIABLE
                        + " (was it changed?); register the key again with PATCH /v1/providers/" + p.id() + "."));
    }

    private static ObjectNode checked(String type, String base, String key) {
        List<String> models;
        try {
            models = ProviderModels.list(type, base, key);
        } catch (ProviderModels.Failed e) {
            throw ApiException.badRequest("The provider's check failed: " + e.getMessage() + ".");
        }
        ObjectNode out = Body.JSON.createObjectNode().put("status", "ok").put("message", "The " + type + " provider at "
                + ProviderModels.base(type, base) + " accepted the key and lists " + models.size() + " models.");
        models.forEach(out.withArray("models")::add);
        return out;
    }

    /** Letta's {@code Provider}, without its key (a client never reads a key back). */
    private static ObjectNode view(ProviderRecord p) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", p.id());
        o.put("name", p.name());
        o.put("provider_type", p.type());
        o.put("provider_category", "byok");
        o.putNull("api_key");
        if (p.baseUrl().isEmpty()) {
            o.putNull("base_url");
        } else {
            o.put("base_url", p.baseUrl());
        }
        o.putNull("access_key");
        o.putNull("region");
        o.putNull("api_version");
        o.put("updated_at", LettaViews.date(p.updatedAt()));
        o.putNull("last_synced");
        o.putNull("api_key_enc");
        o.putNull("access_key_enc");
        return o;
    }
}

package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.CanvasArtefact;
import dev.engram.memory.Scope;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import tools.jackson.databind.node.ObjectNode;

/**
 * The agents' canvas artefacts: listed and linked under {@code /v1/agents/{agent_id}/canvas}, and served as pages under
 * {@code /canvas/{agent_id}/{canvas_name}}, either to the owner's key or to a short-lived signed link (which a browser
 * tab can open without holding the key: the link names one version of one artefact and expires after
 * {@link #LINK_TTL}). A page is served with a content security policy that sandboxes it (scripts run, in an opaque
 * origin: no cookies, no storage of the server's origin) and denies it every network request, so an artefact cannot call
 * the API with its viewer's credentials or send anything anywhere. Links are signed with a key the server draws at
 * start: they do not outlive it, nor work on another server.
 */
final class CanvasRoutes {
    /** The path prefix of the pages. */
    static final String PAGES = "/canvas/";
    /** How long a signed link opens its page. */
    static final Duration LINK_TTL = Duration.ofMinutes(10);
    /** The policy every page is served with. */
    static final String CSP = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; "
            + "style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; "
            + "form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

    private final Api api;
    private final SecretKeySpec key;

    CanvasRoutes(Api api) {
        this.api = api;
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        this.key = new SecretKeySpec(secret, "HmacSHA256");
    }

    List<Route> routes() {
        return Route.table()
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/canvas", this::list))
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/canvas/{canvas_name}/versions", this::versions))
                .add(Route.agent(api, POST, "/v1/agents/{agent_id}/canvas/{canvas_name}/link", this::link))
                // A page needs a key unless it carries a signed link: Authentication leaves such a request to this route.
                .add(new Route(GET, PAGES + "{agent_id}/{canvas_name}", Route.Access.CALLER, this::page))
                .list();
    }

    /** Whether a request for a page carries a signed link (then {@link Authentication} does not ask for a key). */
    static boolean signed(ServerRequest req) {
        return req.path().path().startsWith(PAGES) && req.query().contains("sig");
    }

    private void list(Agent agent, ServerRequest req, ServerResponse res) {
        Api.json(res, api.store.canvases().list(agent.scope()).stream().map(CanvasRoutes::view).toList());
    }

    private void versions(Agent agent, ServerRequest req, ServerResponse res) {
        List<CanvasArtefact> all = api.store.canvases().versions(agent.scope(), name(req));
        if (all.isEmpty()) {
            throw ApiException.notFound("Canvas '" + name(req) + "' not found.");
        }
        Api.json(res, all.stream().map(CanvasRoutes::view).toList());
    }

    private void link(Agent agent, ServerRequest req, ServerResponse res) {
        CanvasArtefact a = artefact(agent.scope(), name(req), Query.integer(req, "version", 1, Integer.MAX_VALUE));
        Instant expires = api.store.clock().instant().plus(LINK_TTL);
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("url", PAGES + a.scope().agentId() + "/" + a.name() + "?version=" + a.version() + "&user="
                + URLEncoder.encode(a.scope().userId(), StandardCharsets.UTF_8) + "&expires=" + expires.getEpochSecond()
                + "&sig=" + sign(a.scope(), a.name(), a.version(), expires.getEpochSecond()));
        o.put("version", a.version());
        o.put("expires_at", LettaViews.date(expires));
        Api.json(res, o);
    }

    private void page(ServerRequest req, ServerResponse res) {
        String agentId = req.path().pathParameters().get("agent_id");
        Optional<Integer> version = Query.integer(req, "version", 1, Integer.MAX_VALUE);
        CanvasArtefact a;
        if (signed(req)) {
            a = bySignedLink(req, agentId, version);
        } else {
            Agent agent = api.agent(Authentication.caller(req), agentId);
            a = artefact(agent.scope(), name(req), version);
        }
        res.status(Status.OK_200);
        res.header(HeaderNames.CONTENT_TYPE, "text/html; charset=utf-8");
        res.header("Content-Security-Policy", CSP);
        res.header(HeaderNames.X_CONTENT_TYPE_OPTIONS, "nosniff");
        res.header("X-Frame-Options", "SAMEORIGIN");
        res.header(HeaderNames.CACHE_CONTROL, "private, no-store");
        res.header("Referrer-Policy", "no-referrer");
        res.header("Cross-Origin-Resource-Policy", "same-origin");
        res.header("Cross-Origin-Opener-Policy", "same-origin");
        res.send(a.content().getBytes(StandardCharsets.UTF_8));
    }

    private CanvasArtefact bySignedLink(ServerRequest req, String agentId, Optional<Integer> version) {
        String user = Query.string(req, "user").orElse("");
        long expires;
        try {
            expires = Long.parseLong(Query.string(req, "expires").orElse(""));
        } catch (NumberFormatException e) {
            throw ApiException.unauthorized("This canvas link is not valid; ask for a new one.");
        }
        if (user.isEmpty() || version.isEmpty()
                || !MessageDigest.isEqual(sign(Scope.of(user, agentId), name(req), version.get(), expires).getBytes(StandardCharsets.US_ASCII),
                        Query.string(req, "sig").orElse("").getBytes(StandardCharsets.US_ASCII))) {
            throw ApiException.unauthorized("This canvas link is not valid; ask for a new one.");
        }
        if (api.store.clock().instant().getEpochSecond() >= expires) {
            throw ApiException.unauthorized("This canvas link has expired; ask for a new one.");
        }
        return artefact(Scope.of(user, agentId), name(req), version);
    }

    private CanvasArtefact artefact(Scope scope, String name, Optional<Integer> version) {
        Optional<CanvasArtefact> a = version.isPresent() ? api.store.canvases().get(scope, name, version.get())
                : api.store.canvases().latest(scope, name);
        return a.orElseThrow(() -> ApiException.notFound("Canvas '" + name + "'" + version.map(v -> " version " + v).orElse("")
                + " not found."));
    }

    private String sign(Scope scope, String name, int version, long expires) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            byte[] sig = mac.doFinal((scope.userId() + "\n" + scope.agentId() + "\n" + name + "\n" + version + "\n" + expires)
                    .getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(sig);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    private static String name(ServerRequest req) {
        return req.path().pathParameters().get("canvas_name");
    }

    private static ObjectNode view(CanvasArtefact a) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("name", a.name());
        o.put("title", a.title());
        o.put("version", a.version());
        o.put("bytes", a.bytes());
        o.put("created_at", LettaViews.date(a.createdAt()));
        o.put("path", PAGES + a.scope().agentId() + "/" + a.name() + "?version=" + a.version());
        return o;
    }
}

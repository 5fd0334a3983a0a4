package dev.engram.server;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The web console's files, served from the server jar ({@code console/} on the class path): {@code GET /} is its page,
 * {@code GET /console/NAME} its scripts, styles and images. No key is needed to load them (the page asks for one and
 * sends it to {@code /v1} like any client). Every answer carries a strict Content-Security-Policy (scripts, styles
 * and connections from this server only, no inline script, no frames), {@code nosniff} and no referrer; the files are
 * revalidated on each load ({@code no-cache} with an ETag, 304 when unchanged), so a new server version is never
 * shadowed by a cached script. Any other name is a 404; names are plain ({@code [a-z0-9-]+.ext}), so no path
 * reaches outside the folder.
 */
final class ConsoleAssets {
    /** The console's policy: everything from this origin, nothing inline, nothing framed. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            + "frame-ancestors 'none'";

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]*\\.(html|js|css|png|svg)");
    private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8", "css", "text/css; charset=utf-8", "png", "image/png",
            "svg", "image/svg+xml");

    /** A file's bytes and its ETag. */
    record Asset(byte[] bytes, String type, String etag) {
    }

    /** The console's files read so far: only files that exist, so that it holds at most the console's own files. */
    private final Map<String, Asset> cache = new ConcurrentHashMap<>();

    /** Registers {@code GET /} and {@code GET /console/{file}} (any deeper path under {@code /console/} is a 404). */
    void register(HttpRouting.Builder routing) {
        routing.get("/", (req, res) -> send(req, res, "index.html"));
        routing.get("/console/{file}", (req, res) -> send(req, res, req.path().pathParameters().get("file")));
        // a path of several segments (a "../" included) is no console file either: 404, not Helidon's unmatched route
        routing.get("/console/*", (req, res) -> send(req, res, req.path().path().substring("/console/".length())));
    }

    private void send(ServerRequest req, ServerResponse res, String name) {
        Optional<Asset> asset = NAME.matcher(name).matches() ? asset(name) : Optional.empty();
        res.header(HeaderNames.create("Content-Security-Policy"), CONTENT_SECURITY_POLICY);
        res.header(HeaderNames.create("X-Content-Type-Options"), "nosniff");
        res.header(HeaderNames.create("Referrer-Policy"), "no-referrer");
        if (asset.isEmpty()) {
            res.status(Status.NOT_FOUND_404);
            res.header(HeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
            res.send(("No console file '" + name + "'.").getBytes(StandardCharsets.UTF_8));
            return;
        }
        Asset a = asset.get();
        res.header(HeaderNames.CACHE_CONTROL, "no-cache");
        res.header(HeaderNames.ETAG, a.etag());
        if (req.headers().first(HeaderNames.IF_NONE_MATCH).map(a.etag()::equals).orElse(false)) {
            res.status(Status.NOT_MODIFIED_304);
            res.send();
            return;
        }
        res.header(HeaderNames.CONTENT_TYPE, a.type());
        res.send(a.bytes());
    }

    /** The file, read once; a name that is no file is looked up each time it is asked for, and not remembered. */
    Optional<Asset> asset(String name) {
        Asset known = cache.get(name);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<Asset> found = load(name);
        found.ifPresent(a -> cache.putIfAbsent(name, a));
        return found;
    }

    /** How many files are remembered. */
    int cached() {
        return cache.size();
    }

    private static Optional<Asset> load(String name) {
        try (InputStream in = ConsoleAssets.class.getClassLoader().getResourceAsStream("console/" + name)) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] bytes = in.readAllBytes();
            String ext = name.substring(name.lastIndexOf('.') + 1);
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return Optional.of(new Asset(bytes, TYPES.get(ext), "\"" + HexFormat.of().formatHex(digest, 0, 12) + "\""));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the console file " + name + " from the server jar", e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java runtime", e);
        }
    }
}

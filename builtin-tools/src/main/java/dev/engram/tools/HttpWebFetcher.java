package dev.engram.tools;

import dev.engram.framework.ToolException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** The default {@link WebFetcher}: follows redirects itself so that every hop is checked. */
final class HttpWebFetcher implements WebFetcher {
    private final WebFetcherOptions options;
    private final HttpClient client;

    HttpWebFetcher(WebFetcherOptions options) {
        this.options = options;
        this.client = HttpClient.newBuilder().connectTimeout(options.timeout()).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    @Override
    public FetchedPage fetch(URI uri) throws Exception {
        URI current = uri;
        for (int hop = 0; ; hop++) {
            check(current);
            HttpRequest request = HttpRequest.newBuilder(current).timeout(options.timeout()).GET()
                    .header("User-Agent", "Engram/0.1 (web_fetch)")
                    .header("Accept", "text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5").build();
            HttpResponse<InputStream> response;
            try {
                response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
            } catch (HttpTimeoutException e) {
                throw new ToolException("Fetching " + current + " timed out after " + options.timeout().toSeconds() + " s.");
            } catch (IOException e) {
                throw new ToolException("Cannot fetch " + current + ": " + e.getMessage());
            }
            int status = response.statusCode();
            if (status >= 300 && status < 400 && response.headers().firstValue("Location").isPresent()) {
                response.body().close();
                if (hop >= options.maxRedirects()) {
                    throw new ToolException("Fetching " + uri + " redirected more than " + options.maxRedirects() + " times.");
                }
                current = current.resolve(response.headers().firstValue("Location").get());
                continue;
            }
            String type = response.headers().firstValue("Content-Type").orElse("application/octet-stream");
            byte[] body;
            try (InputStream in = response.body()) {
                body = in.readNBytes(options.maxBytes() + 1);
            }
            if (body.length > options.maxBytes()) {
                throw new ToolException("The page at " + current + " is larger than " + options.maxBytes() + " bytes; it was not read.");
            }
            if (status >= 400) {
                throw new ToolException("Fetching " + current + " failed with HTTP " + status + ".");
            }
            String mediaType = type.split(";")[0].strip().toLowerCase(Locale.ROOT);
            if (!(mediaType.startsWith("text/") || mediaType.contains("json") || mediaType.contains("xml"))) {
                throw new ToolException("The page at " + current + " is " + mediaType + ", not text; it cannot be read.");
            }
            return new FetchedPage(current, status, mediaType, new String(body, charset(type)));
        }
    }

    private static Charset charset(String contentType) {
        for (String part : contentType.split(";")) {
            String p = part.strip();
            if (p.toLowerCase(Locale.ROOT).startsWith("charset=")) {
                try {
                    return Charset.forName(p.substring(8).replace("\"", ""));
                } catch (RuntimeException e) {
                    return StandardCharsets.UTF_8;
                }
            }
        }
        return StandardCharsets.UTF_8;
    }

    private void check(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new ToolException("Only http and https URLs can be fetched, not '" + uri + "'.");
        }
        if (uri.getHost() == null) {
            throw new ToolException("'" + uri + "' has no host.");
        }
        if (options.allowPrivateAddresses()) {
            return;
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(uri.getHost());
        } catch (UnknownHostException e) {
            throw new ToolException("The host " + uri.getHost() + " could not be found.");
        }
        for (InetAddress a : addresses) {
            if (!isPublic(a)) {
                throw new ToolException("Fetching " + uri.getHost() + " is blocked: it resolves to a private, loopback or "
                        + "otherwise non-public address.");
            }
        }
    }

    /** Whether an address is on the public internet (not loopback, private, link-local, CGNAT, ULA, multicast...). */
    static boolean isPublic(InetAddress a) {
        if (a.isAnyLocalAddress() || a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return false;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) {
            int first = b[0] & 0xFF;
            int second = b[1] & 0xFF;
            return !(first == 0 || first >= 240 || (first == 100 && second >= 64 && second < 128)
                    || (first == 192 && second == 0 && (b[2] & 0xFF) == 0) || (first == 198 && (second == 18 || second == 19)));
        }
        if (a instanceof Inet6Address) {
            if ((b[0] & 0xFE) == 0xFC) {
                return false; // fc00::/7 unique local
            }
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            if (mapped && (b[10] & 0xFF) == 0xFF && (b[11] & 0xFF) == 0xFF) {
                try {
                    return isPublic(InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]}));
                } catch (UnknownHostException e) {
                    return false;
                }
            }
        }
        return true;
    }
}

package dev.engram.tools;

import dev.engram.framework.ToolException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SystemDefaultDnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.util.Timeout;

/**
 * The default {@link WebFetcher}, on Apache HttpClient 5. It follows redirects itself so that every hop
 * is checked, and it resolves every host (an address written in the URL too) through its own
 * {@link DnsResolver}, which refuses any
 * non-public address ({@link PublicAddresses}) and hands the connection exactly the addresses it
 * checked: there is no second lookup that a DNS server could answer differently.
 */
final class HttpWebFetcher implements WebFetcher {
    private final WebFetcherOptions options;
    private final CloseableHttpClient client;

    /** A host that resolves to an address web_fetch may not reach. */
    static final class BlockedAddressException extends UnknownHostException {
        private static final long serialVersionUID = 1L;

        BlockedAddressException(String host) {
            super(host);
        }
    }

    HttpWebFetcher(WebFetcherOptions options) {
        this.options = options;
        Timeout timeout = Timeout.ofMilliseconds(options.timeout().toMillis());
        this.client = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setDnsResolver(new CheckingResolver(options.allowPrivateAddresses()))
                        .setDefaultConnectionConfig(ConnectionConfig.custom().setConnectTimeout(timeout)
                                .setSocketTimeout(timeout).build())
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(timeout).build())
                .disableRedirectHandling().disableAutomaticRetries().disableCookieManagement().disableAuthCaching()
                .build();
    }

    /** Resolves like the system, then refuses the host if any of its addresses is not public. */
    private record CheckingResolver(boolean allowPrivate) implements DnsResolver {
        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            InetAddress[] addresses = SystemDefaultDnsResolver.INSTANCE.resolve(host);
            if (!allowPrivate) {
                for (InetAddress a : addresses) {
                    if (!PublicAddresses.isPublic(a)) {
                        throw new BlockedAddressException(host);
                    }
                }
            }
            return addresses;
        }

        @Override
        public String resolveCanonicalHostname(String host) throws UnknownHostException {
            return SystemDefaultDnsResolver.INSTANCE.resolveCanonicalHostname(host);
        }
    }

    @Override
    public FetchedPage fetch(URI uri) throws Exception {
        URI current = uri;
        for (int hop = 0; ; hop++) {
            check(current);
            HttpGet request = new HttpGet(current);
            request.setHeader("User-Agent", "Engram/0.1 (web_fetch)");
            request.setHeader("Accept", "text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5");
            URI at = current;
            Response response;
            try {
                response = client.execute(request, r -> {
                    Header location = r.getFirstHeader("Location");
                    HttpEntity entity = r.getEntity();
                    byte[] body = new byte[0];
                    if (entity != null && (r.getCode() < 300 || r.getCode() >= 400 || location == null)) {
                        try (InputStream in = entity.getContent()) {
                            body = in.readNBytes(options.maxBytes() + 1);
                        }
                    }
                    return new Response(r.getCode(), location == null ? null : location.getValue(),
                            entity == null || entity.getContentType() == null ? "application/octet-stream" : entity.getContentType(),
                            body);
                });
            } catch (BlockedAddressException e) {
                throw new ToolException("Fetching " + at.getHost() + " is blocked: it resolves to a private, loopback or "
                        + "otherwise non-public address.");
            } catch (UnknownHostException e) {
                throw new ToolException("The host " + at.getHost() + " could not be found.");
            } catch (InterruptedIOException e) {
                throw new ToolException("Fetching " + at + " timed out after " + options.timeout().toSeconds() + " s.");
            } catch (IOException e) {
                throw new ToolException("Cannot fetch " + at + ": " + e.getMessage());
            }
            int status = response.status();
            if (status >= 300 && status < 400 && response.location() != null) {
                if (hop >= options.maxRedirects()) {
                    throw new ToolException("Fetching " + uri + " redirected more than " + options.maxRedirects() + " times.");
                }
                current = current.resolve(response.location());
                continue;
            }
            if (response.body().length > options.maxBytes()) {
                throw new ToolException("The page at " + current + " is larger than " + options.maxBytes() + " bytes; it was not read.");
            }
            if (status >= 400) {
                throw new ToolException("Fetching " + current + " failed with HTTP " + status + ".");
            }
            String mediaType = response.type().split(";")[0].strip().toLowerCase(Locale.ROOT);
            if (!(mediaType.startsWith("text/") || mediaType.contains("json") || mediaType.contains("xml"))) {
                throw new ToolException("The page at " + current + " is " + mediaType + ", not text; it cannot be read.");
            }
            return new FetchedPage(current, status, mediaType, new String(response.body(), charset(response.type())));
        }
    }

    private record Response(int status, String location, String type, byte[] body) {
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

    private static void check(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new ToolException("Only http and https URLs can be fetched, not '" + uri + "'.");
        }
        if (uri.getHost() == null) {
            throw new ToolException("'" + uri + "' has no host.");
        }
    }
}

package dev.engram.tools;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link OutboundChannel#webhook}: a JSON POST to the operator's URL. A 2xx answer is delivered; a 5xx answer or a
 * failed connection is tried again (up to the attempts, waiting 200 ms, then 400 ms, ...); any other answer, a 3xx
 * included (redirects are never followed), is a failure at once.
 */
final class WebhookChannel implements OutboundChannel {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookChannel.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,39}");

    private final String name;
    private final URI url;
    private final Duration timeout;
    private final int attempts;
    private final HttpClient client;

    WebhookChannel(String name, URI url, Duration timeout, int attempts) {
        Objects.requireNonNull(name, "channel name must not be null");
        Objects.requireNonNull(url, "webhook URL must not be null");
        Objects.requireNonNull(timeout, "timeout must not be null");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("channel name '" + name + "' is not valid: use 1 to 40 letters, digits, "
                    + "dashes or underscores (e.g. webhook)");
        }
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!url.isAbsolute() || !(scheme.equals("http") || scheme.equals("https")) || url.getHost() == null) {
            throw new IllegalArgumentException("a webhook URL is an absolute http or https URL, e.g. "
                    + "https://hooks.example.com/engram; got '" + url + "'");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the webhook timeout must be positive, got " + timeout);
        }
        if (attempts < 1 || attempts > 10) {
            throw new IllegalArgumentException("a webhook is tried 1 to 10 times, got " + attempts);
        }
        this.name = name;
        this.url = url;
        this.timeout = timeout;
        this.attempts = attempts;
        this.client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(timeout).build();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public SendResult send(OutboundMessage message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("channel", name);
        body.put("user_id", message.userId());
        body.put("agent_id", message.agentId());
        body.put("text", message.text());
        body.put("links", message.links());
        body.put("sent_at", message.at().toString());
        HttpRequest request = HttpRequest.newBuilder(url).timeout(timeout).header("Content-Type", "application/json")
                .header("User-Agent", "engram-webhook").POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                .build();
        String last = "";
        for (int attempt = 1; attempt <= attempts; attempt++) {
            if (attempt > 1) {
                try {
                    Thread.sleep(200L << (attempt - 2));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return SendResult.failed("interrupted after " + (attempt - 1) + " attempts (" + last + ")");
                }
            }
            try {
                HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
                int status = response.statusCode();
                if (status >= 200 && status < 300) {
                    return SendResult.delivered("HTTP " + status + (attempt > 1 ? " after " + attempt + " attempts" : ""));
                }
                last = "HTTP " + status;
                if (status < 500) {
                    return SendResult.failed("the webhook answered " + last + (status / 100 == 3 ? " (redirects are not followed)" : ""));
                }
            } catch (IOException e) {
                last = "cannot reach the webhook: " + e.getClass().getSimpleName();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return SendResult.failed("interrupted");
            }
            LOG.debug("Webhook channel {} attempt {} failed: {}", name, attempt, last);
        }
        return SendResult.failed(last + " after " + attempts + (attempts == 1 ? " attempt" : " attempts"));
    }

    @Override
    public String toString() {
        return "webhook channel " + name;
    }
}

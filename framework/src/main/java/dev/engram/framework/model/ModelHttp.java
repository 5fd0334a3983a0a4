package dev.engram.framework.model;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * POSTs JSON to a provider with retries (429, 5xx, timeouts; exponential backoff with jitter;
 * {@code Retry-After} honoured), cancellation by interrupt, error translation, and server-sent
 * events for streaming. Headers are never logged: they carry keys.
 */
final class ModelHttp {
    private static final Logger LOG = LoggerFactory.getLogger(ModelHttp.class);
    private static final Pattern CONTEXT_LENGTH = Pattern.compile(
            "(?i)(context[ _-]?length|context window|maximum context|prompt is too long|too many tokens"
                    + "|exceeds the maximum number of tokens|input token count|reduce the length)");
    private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(60);

    /** One server-sent event. */
    record SseEvent(String event, String data) {
    }

    private final String provider;
    private final HttpClient client;
    private final Duration timeout;
    private final RetryPolicy retry;
    private final Random random = new Random();

    ModelHttp(String provider, Duration timeout, RetryPolicy retry) {
        this.provider = provider;
        this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(20))
                .followRedirects(HttpClient.Redirect.NORMAL).build();
        this.timeout = timeout;
        this.retry = retry;
    }

    /** Sends and returns the parsed JSON body of a 2xx answer. */
    JsonNode post(URI uri, Map<String, String> headers, ObjectNode body) {
        HttpResponse<InputStream> response = send(uri, headers, body, false);
        try (InputStream in = response.body()) {
            return ModelJson.MAPPER.readTree(in);
        } catch (IOException e) {
            throw readFailure(e);
        } catch (JacksonException e) {
            throw new ModelException(provider + " sent a response that is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Sends with {@code Accept: text/event-stream} and feeds every event to {@code onEvent}, on this thread. */
    void stream(URI uri, Map<String, String> headers, ObjectNode body, Consumer<SseEvent> onEvent) {
        HttpResponse<InputStream> response = send(uri, headers, body, true);
        try (InputStream in = response.body();
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String event = "";
            StringBuilder data = new StringBuilder();
            String line;
            while ((line = reader.readLine()) != null) {
                if (Thread.currentThread().isInterrupted()) {
                    throw cancelled();
                }
                if (line.isEmpty()) {
                    if (!data.isEmpty()) {
                        onEvent.accept(new SseEvent(event, data.toString()));
                    }
                    event = "";
                    data.setLength(0);
                } else if (line.startsWith("data:")) {
                    if (!data.isEmpty()) {
                        data.append('\n');
                    }
                    data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
                } else if (line.startsWith("event:")) {
                    event = line.substring(6).strip();
                }
            }
            if (!data.isEmpty()) {
                onEvent.accept(new SseEvent(event, data.toString()));
            }
        } catch (IOException e) {
            throw readFailure(e);
        }
    }

    private ModelException readFailure(IOException e) {
        if (Thread.currentThread().isInterrupted()) {
            return cancelled();
        }
        return new ModelException("reading the response of " + provider + " failed: " + e.getMessage(), e);
    }

    private ModelCancelledException cancelled() {
        return new ModelCancelledException("the call to " + provider + " was cancelled");
    }

    private HttpResponse<InputStream> send(URI uri, Map<String, String> headers, ObjectNode body, boolean stream) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Accept", stream ? "text/event-stream" : "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ModelJson.write(body), StandardCharsets.UTF_8));
        headers.forEach(b::header);
        HttpRequest request = b.build();
        for (int attempt = 1; ; attempt++) {
            if (Thread.currentThread().isInterrupted()) {
                throw cancelled();
            }
            HttpResponse<InputStream> response;
            CompletableFuture<HttpResponse<InputStream>> future =
                    client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
            try {
                response = future.get();
            } catch (InterruptedException e) {
                future.cancel(true);
                Thread.currentThread().interrupt();
                throw cancelled();
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof HttpTimeoutException && attempt < retry.maxAttempts()) {
                    waitBeforeRetry(attempt, Optional.empty(), "timed out");
                    continue;
                }
                if (cause instanceof HttpTimeoutException) {
                    throw new ModelException(provider + " did not answer within " + timeout.toSeconds() + " s (after "
                            + attempt + " attempts)", cause);
                }
                throw new ModelException("cannot reach " + provider + " at " + uri.getScheme() + "://" + uri.getAuthority()
                        + ": " + cause, cause);
            }
            int status = response.statusCode();
            if (status >= 200 && status < 300) {
                return response;
            }
            String errorBody = drain(response);
            boolean retryable = status == 429 || status >= 500;
            if (retryable && attempt < retry.maxAttempts()) {
                waitBeforeRetry(attempt, retryAfter(response), "answered " + status);
                continue;
            }
            throw error(status, errorBody);
        }
    }

    private void waitBeforeRetry(int attempt, Optional<Duration> retryAfter, String what) {
        Duration wait = retryAfter.map(d -> d.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : d)
                .orElseGet(() -> retry.backoff(attempt, random));
        LOG.info("{} {}; retrying in {} ms (attempt {} of {})", provider, what, wait.toMillis(), attempt + 1, retry.maxAttempts());
        try {
            Thread.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw cancelled();
        }
    }

    /** {@code Retry-After} in seconds or as an HTTP date. */
    static Optional<Duration> retryAfter(HttpResponse<?> response) {
        Optional<String> value = response.headers().firstValue("Retry-After");
        if (value.isEmpty()) {
            return Optional.empty();
        }
        String v = value.get().strip();
        try {
            return Optional.of(Duration.ofMillis((long) (Double.parseDouble(v) * 1000)));
        } catch (NumberFormatException e) {
            try {
                ZonedDateTime when = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
                Duration d = Duration.between(ZonedDateTime.now(when.getZone()), when);
                return Optional.of(d.isNegative() ? Duration.ZERO : d);
            } catch (RuntimeException ignored) {
                return Optional.empty();
            }
        }
    }

    private static String drain(HttpResponse<InputStream> response) {
        try (InputStream in = response.body()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** The provider's own error message, and the right exception for it. */
    private ModelHttpException error(int status, String body) {
        String message = body.isBlank() ? "(no body)" : body.strip();
        String code = "";
        try {
            JsonNode json = ModelJson.MAPPER.readTree(body);
            JsonNode error = json.path("error");
            if (error.isObject()) {
                message = error.path("message").asString(message);
                code = error.path("code").asString("") + " " + error.path("type").asString("") + " "
                        + error.path("status").asString("");
            } else if (error.isString()) {
                message = error.asString();
            } else if (json.has("message")) {
                message = json.path("message").asString(message);
            }
        } catch (JacksonException ignored) {
            // not JSON: keep the raw body
        }
        if (message.length() > 2_000) {
            message = message.substring(0, 2_000) + "...";
        }
        if (status < 500 && (code.contains("context_length_exceeded") || CONTEXT_LENGTH.matcher(message).find())) {
            return new ContextLengthExceededException(provider, status, message);
        }
        return new ModelHttpException(provider, status, message);
    }
}

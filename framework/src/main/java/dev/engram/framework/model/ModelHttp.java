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
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
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
 *
 * <p>Each attempt is one exchange bounded by the timeout, from sending the request to the last byte of
 * the answer, streamed or not: the headers must come within it (the request timeout) and the body must
 * be complete by the same deadline, so that a provider that accepts and never answers, stops halfway or
 * trickles bytes forever ends the call with a {@link ModelTimeoutException}. An answer that is not JSON,
 * a stream event that is not JSON, and an answer larger than {@link #MAX_ANSWER_BYTES} fail with a
 * {@link ModelException} naming the provider.
 */
final class ModelHttp {
    private static final Logger LOG = LoggerFactory.getLogger(ModelHttp.class);
    private static final Pattern CONTEXT_LENGTH = Pattern.compile(
            "(?i)(context[ _-]?length|context window|maximum context|prompt is too long|too many tokens"
                    + "|exceeds the maximum number of tokens|input token count|reduce the length)");
    private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(60);
    /** The largest answer read, streamed or not: far beyond any model's output. */
    static final long MAX_ANSWER_BYTES = 64L << 20;
    /** The longest line of a stream. */
    static final int MAX_SSE_LINE_CHARS = 16 << 20;

    /** An answer whose status is 2xx, with its body bounded by the attempt's deadline. */
    private record Answer(HttpResponse<?> response, InputStream body) {
    }

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

    /** The provider as messages name it. */
    String provider() {
        return provider;
    }

    /** Sends and returns the parsed JSON body of a 2xx answer. */
    JsonNode post(URI uri, Map<String, String> headers, ObjectNode body) {
        Answer answer = send(uri, headers, body, false);
        try (InputStream in = answer.body()) {
            return ModelJson.MAPPER.readTree(in);
        } catch (IOException e) {
            throw readFailure(e);
        } catch (JacksonException e) {
            if (e.getCause() instanceof IOException io) {
                throw readFailure(io);
            }
            throw new ModelException(provider + " sent a response that is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Sends with {@code Accept: text/event-stream} and feeds every event to {@code onEvent}, on this thread. */
    void stream(URI uri, Map<String, String> headers, ObjectNode body, Consumer<SseEvent> onEvent) {
        Answer answer = send(uri, headers, body, true);
        Consumer<SseEvent> checked = e -> {
            try {
                onEvent.accept(e);
            } catch (JacksonException bad) {
                throw new ModelException(provider + " sent a stream event that is not JSON: " + bad.getOriginalMessage(), bad);
            }
        };
        try (InputStream in = answer.body();
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String event = "";
            StringBuilder data = new StringBuilder();
            String line;
            while ((line = readLine(reader)) != null) {
                if (Thread.currentThread().isInterrupted()) {
                    throw cancelled();
                }
                if (line.isEmpty()) {
                    if (!data.isEmpty()) {
                        checked.accept(new SseEvent(event, data.toString()));
                    }
                    event = "";
                    data.setLength(0);
                } else if (line.startsWith("data:")) {
                    if (data.length() + line.length() > MAX_SSE_LINE_CHARS) {
                        throw new ModelException(provider + " sent a stream event longer than " + MAX_SSE_LINE_CHARS
                                + " characters");
                    }
                    if (!data.isEmpty()) {
                        data.append('\n');
                    }
                    data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
                } else if (line.startsWith("event:")) {
                    event = line.substring(6).strip();
                }
            }
            if (!data.isEmpty()) {
                checked.accept(new SseEvent(event, data.toString()));
            }
        } catch (IOException e) {
            throw readFailure(e);
        }
    }

    /** A line of at most {@link #MAX_SSE_LINE_CHARS} characters, without its end; {@code null} at the end. */
    private String readLine(BufferedReader reader) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = reader.read()) >= 0) {
            if (c == '\n') {
                return line.length() > 0 && line.charAt(line.length() - 1) == '\r' ? line.substring(0, line.length() - 1)
                        : line.toString();
            }
            if (line.length() >= MAX_SSE_LINE_CHARS) {
                throw new ModelException(provider + " sent a stream line longer than " + MAX_SSE_LINE_CHARS + " characters");
            }
            line.append((char) c);
        }
        return line.isEmpty() ? null : line.toString();
    }

    private ModelException readFailure(IOException e) {
        if (Thread.currentThread().isInterrupted() || e instanceof java.io.InterruptedIOException) {
            return cancelled();
        }
        if (e instanceof BoundedBody.DeadlineExceeded) {
            return new ModelTimeoutException(provider, timeout, provider + " did not finish its answer within the timeout of "
                    + seconds(timeout) + " (it stopped sending, or sent too slowly); the call was abandoned", e);
        }
        if (e instanceof BoundedBody.TooLarge) {
            return new ModelException(provider + " sent an answer larger than " + (MAX_ANSWER_BYTES >> 20) + " MiB", e);
        }
        return new ModelException("reading the response of " + provider + " failed: " + e.getMessage(), e);
    }

    /** A duration in words: whole seconds, or milliseconds below 10 s. */
    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 || d.toSeconds() >= 10 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private ModelCancelledException cancelled() {
        return new ModelCancelledException("the call to " + provider + " was cancelled");
    }

    private Answer send(URI uri, Map<String, String> headers, ObjectNode body, boolean stream) {
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
            HttpResponse<Flow.Publisher<List<ByteBuffer>>> response;
            long deadline = System.nanoTime() + timeout.toNanos();
            CompletableFuture<HttpResponse<Flow.Publisher<List<ByteBuffer>>>> future =
                    client.sendAsync(request, HttpResponse.BodyHandlers.ofPublisher());
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
                    throw new ModelTimeoutException(provider, timeout, provider + " did not answer within the timeout of "
                            + seconds(timeout) + " (after " + attempt + (attempt == 1 ? " attempt)" : " attempts)"), cause);
                }
                throw new ModelException("cannot reach " + provider + " at " + uri.getScheme() + "://" + uri.getAuthority()
                        + ": " + cause, cause);
            }
            int status = response.statusCode();
            BoundedBody answer = new BoundedBody(deadline, MAX_ANSWER_BYTES);
            response.body().subscribe(answer);
            if (status >= 200 && status < 300) {
                return new Answer(response, answer);
            }
            String errorBody = drain(answer);
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

    /** An error answer's body, its first 64 KiB; whatever came, if it does not come whole in time. */
    private static String drain(InputStream body) {
        try (InputStream in = body) {
            return new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
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

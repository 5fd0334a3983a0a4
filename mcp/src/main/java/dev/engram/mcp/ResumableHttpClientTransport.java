package dev.engram.mcp;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportException;
import io.modelcontextprotocol.spec.McpTransportSessionClosedException;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Engram's client side of MCP's Streamable HTTP transport, which resumes a stream the server closes before answering.
 * Each message is POSTed to the endpoint; the answer is JSON or an SSE stream; the {@code Mcp-Session-Id} the server
 * gives is sent with every later request, and a server-initiated stream is opened with {@code GET} once there is a
 * session (a {@code 405} means the server has none). When a request's SSE stream ends before its response, the client
 * waits the stream's reconnection time (its {@code retry:} field, else a second), then {@code GET}s with
 * {@code Last-Event-ID} and reads on: at most a few reconnections in a row that bring no message, after which the
 * request fails with an error saying so (as it does at once when the server gave no event id to resume from, refuses
 * {@code GET}, or sends something that is not JSON-RPC). Closing ends the streams and {@code DELETE}s the session.
 * The MCP Java SDK's {@code HttpClientStreamableHttpTransport} (2.1.0) ignores {@code retry} and
 * {@code Last-Event-ID}, hence this class.
 */
final class ResumableHttpClientTransport implements McpClientTransport {
    private static final System.Logger LOG = System.getLogger(ResumableHttpClientTransport.class.getName());
    /** The protocol versions the client negotiates, newest last (the SDK's transports offer the same). */
    private static final List<String> VERSIONS = List.of(ProtocolVersions.MCP_2024_11_05, ProtocolVersions.MCP_2025_03_26,
            ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);
    private static final String JSON = "application/json";
    private static final String EVENT_STREAM = "text/event-stream";
    /** The largest message (a JSON body or an SSE event) read, in characters. */
    static final int MAX_MESSAGE = 16 * 1024 * 1024;
    /** The reconnection time when the server sets none, and the longest one obeyed. */
    static final Duration DEFAULT_RETRY = Duration.ofSeconds(1);
    static final Duration MAX_RETRY = Duration.ofSeconds(30);
    /** How many reconnections in a row that bring no message a stream gets. */
    static final int MAX_RECONNECTS = 3;

    private final URI endpoint;
    private final Map<String, String> headers;
    private final Duration connectTimeout;
    private final McpJsonMapper mapper;
    private final HttpClient http;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Set<InputStream> open = ConcurrentHashMap.newKeySet();
    private final AtomicReference<String> sessionId = new AtomicReference<>();
    private final AtomicBoolean listening = new AtomicBoolean();
    private volatile Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler =
            m -> Mono.error(new IllegalStateException("The transport was not connected"));
    private volatile Consumer<Throwable> exceptionHandler = t -> {
    };
    private volatile String protocolVersion = VERSIONS.getLast();
    private volatile boolean closed;

    private ResumableHttpClientTransport(URI endpoint, Map<String, String> headers, Duration connectTimeout,
            McpJsonMapper mapper) {
        this.endpoint = endpoint.getRawPath() == null || endpoint.getRawPath().isEmpty()
                ? URI.create(endpoint.getScheme() + "://" + endpoint.getRawAuthority() + "/"
                        + (endpoint.getRawQuery() == null ? "" : "?" + endpoint.getRawQuery()))
                : endpoint;
        this.headers = Map.copyOf(headers);
        this.connectTimeout = connectTimeout;
        this.mapper = mapper;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout).build();
    }

    /** A transport to the MCP endpoint {@code endpoint}, sending {@code headers} with every request. */
    static ResumableHttpClientTransport of(URI endpoint, Map<String, String> headers, Duration connectTimeout,
            McpJsonMapper mapper) {
        return new ResumableHttpClientTransport(endpoint, headers, connectTimeout, mapper);
    }

    @Override
    public List<String> protocolVersions() {
        return VERSIONS;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> messages) {
        this.handler = messages;
        return Mono.empty();
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> exceptions) {
        this.exceptionHandler = exceptions;
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
        return mapper.convertValue(data, type);
    }

    /** The session id the server gave, if any. */
    Optional<String> sessionId() {
        return Optional.ofNullable(sessionId.get());
    }

    /**
     * POSTs {@code message}; completes once the server took it (its answer's headers came), the answer being read on:
     * a JSON answer before completing, an SSE answer on its own thread (resumed as the class says).
     */
    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return Mono.deferContextual(ctx -> {
            if (closed) {
                return Mono.error(new McpTransportSessionClosedException("The MCP transport is closed"));
            }
            ctx.getOrEmpty(McpAsyncClient.NEGOTIATED_PROTOCOL_VERSION).ifPresent(v -> protocolVersion = v.toString());
            return Mono.fromFuture(() -> {
                try {
                    HttpRequest request = request().header(HttpHeaders.ACCEPT, JSON + ", " + EVENT_STREAM)
                            .header(HttpHeaders.CONTENT_TYPE, JSON + "; charset=utf-8")
                            .POST(HttpRequest.BodyPublishers.ofString(mapper.writeValueAsString(message))).build();
                    return http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
                } catch (IOException e) {
                    throw new McpTransportException("Could not write the MCP message " + message, e);
                }
            }).flatMap(response -> Mono.fromCallable(() -> {
                answered(message, response, ctx);
                return true;
            })).then();
        });
    }

    /** What the answer to a POST of {@code message} means. */
    private void answered(McpSchema.JSONRPCMessage message, HttpResponse<InputStream> response, ContextView ctx)
            throws IOException {
        String given = response.headers().firstValue(HttpHeaders.MCP_SESSION_ID).orElse(null);
        if (given != null && sessionId.compareAndSet(null, given)) {
            listen(ctx);
        }
        int status = response.statusCode();
        if (status < 200 || status > 299) {
            throw refused("POST", response);
        }
        String type = response.headers().firstValue(HttpHeaders.CONTENT_TYPE).orElse("").toLowerCase();
        if (status == 202 || type.isBlank() || "0".equals(response.headers().firstValue(HttpHeaders.CONTENT_LENGTH)
                .orElse(""))) {
            response.body().close();
        } else if (type.contains(EVENT_STREAM)) {
            Object awaited = message instanceof McpSchema.JSONRPCRequest r ? r.id() : null;
            threads.execute(() -> follow(awaited, response.body(), ctx));
        } else if (type.contains(JSON)) {
            String body;
            try (InputStream in = response.body()) {
                byte[] bytes = in.readNBytes(MAX_MESSAGE + 1);
                if (bytes.length > MAX_MESSAGE) {
                    throw new McpTransportException("The MCP server's answer is larger than " + MAX_MESSAGE + " bytes.");
                }
                body = new String(bytes, StandardCharsets.UTF_8);
            }
            if (message instanceof McpSchema.JSONRPCRequest) {
                deliver(parse(body), ctx);
            }
        } else {
            response.body().close();
            throw new McpTransportException("The MCP server answered a POST with Content-Type '" + type
                    + "', neither " + JSON + " nor " + EVENT_STREAM + ".");
        }
    }

    /**
     * Reads a request's SSE stream until the response to {@code awaited} (null: nothing awaited) came, resuming it with
     * {@code GET} and {@code Last-Event-ID} when it ends first; a failure is delivered as that request's error response.
     */
    private void follow(Object awaited, InputStream first, ContextView ctx) {
        SseReader reader = SseReader.of(first, MAX_MESSAGE);
        InputStream in = first;
        int reconnects = 0;
        try {
            while (true) {
                int messages = read(reader, in, awaited, ctx);
                if (messages < 0 || awaited == null) {
                    return;
                }
                if (messages > 0) {
                    reconnects = 0;
                }
                Optional<String> last = reader.lastEventId();
                if (last.isEmpty()) {
                    fail(awaited, "The MCP server closed the stream of request " + awaited + " before answering it, "
                            + "with no event id to resume from.", ctx);
                    return;
                }
                in = null;
                while (in == null) {
                    if (reconnects++ >= MAX_RECONNECTS) {
                        fail(awaited, "The MCP server closed the stream of request " + awaited + " before answering it, "
                                + "and " + MAX_RECONNECTS + " reconnection(s) in a row (GET with Last-Event-ID "
                                + last.get() + ") brought no answer; gave up.", ctx);
                        return;
                    }
                    if (!pause(reader)) {
                        return;
                    }
                    in = resume(last.get());
                }
                reader.follow(in);
            }
        } catch (McpTransportException e) {
            fail(awaited, e.getMessage(), ctx);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The resumed stream after {@code lastEventId}, or null to try again; refusals are errors. */
    private InputStream resume(String lastEventId) throws InterruptedException {
        try {
            HttpResponse<InputStream> resumed = get(Optional.of(lastEventId));
            int status = resumed.statusCode();
            if (status / 100 == 2 && isEventStream(resumed)) {
                return resumed.body();
            }
            closeQuietly(resumed.body());
            if (status == 405 || status == 404 && sessionId.get() != null) {
                throw new McpTransportException("The MCP server closed a request's stream before answering it, and "
                        + "refused to resume it (GET with Last-Event-ID " + lastEventId + " answered " + status + ").");
            }
            LOG.log(Level.DEBUG, "Resuming an MCP stream was answered {0}", status);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "Resuming an MCP stream failed: {0}", e.getMessage());
        }
        return null;
    }

    /**
     * Delivers the messages of the SSE stream {@code in} until the response to {@code awaited} came (then -1, as when the
     * transport closed); otherwise how many messages it brought before it ended or broke.
     *
     * @throws McpTransportException if an event is not a JSON-RPC message, or too large
     */
    private int read(SseReader reader, InputStream in, Object awaited, ContextView ctx) {
        open.add(in);
        int messages = 0;
        try {
            for (Optional<SseReader.Event> e = reader.next(); e.isPresent() && !closed; e = reader.next()) {
                SseReader.Event event = e.get();
                if (!event.type().equals("message") || event.data().isBlank()) {
                    continue; // another type of event, or a priming one (an id to resume from and no message)
                }
                McpSchema.JSONRPCMessage message = parse(event.data());
                messages++;
                deliver(message, ctx);
                if (awaited != null && message instanceof McpSchema.JSONRPCResponse r
                        && String.valueOf(awaited).equals(String.valueOf(r.id()))) {
                    return -1;
                }
            }
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "An MCP server's SSE stream broke: {0}", e.getMessage());
        } finally {
            open.remove(in);
            closeQuietly(in);
        }
        return closed ? -1 : messages;
    }

    /** Opens the server-initiated stream of the session, once, and keeps it open (resumed) until the transport closes. */
    private void listen(ContextView ctx) {
        String session = sessionId.get();
        if (!listening.compareAndSet(false, true)) {
            return;
        }
        threads.execute(() -> {
            SseReader reader = null;
            int reconnects = 0;
            try {
                while (!closed && session.equals(sessionId.get())) {
                    Optional<String> last = reader == null ? Optional.empty() : reader.lastEventId();
                    try {
                        HttpResponse<InputStream> r = get(last);
                        int status = r.statusCode();
                        if (status / 100 == 2 && isEventStream(r)) {
                            if (reader == null) {
                                reader = SseReader.of(r.body(), MAX_MESSAGE);
                            } else {
                                reader.follow(r.body());
                            }
                            int messages = read(reader, r.body(), null, ctx);
                            if (messages < 0) {
                                return;
                            }
                            reconnects = messages > 0 ? 0 : reconnects;
                        } else {
                            closeQuietly(r.body());
                            if (status == 405 || status == 404) {
                                LOG.log(Level.DEBUG, "The MCP server {0} offers no server-initiated stream ({1})",
                                        endpoint, status);
                                return;
                            }
                        }
                    } catch (IOException e) {
                        LOG.log(Level.DEBUG, "An MCP server's server-initiated stream failed: {0}", e.getMessage());
                    }
                    if (reconnects++ >= MAX_RECONNECTS || !pause(reader)) {
                        return;
                    }
                }
            } catch (McpTransportException e) {
                LOG.log(Level.WARNING, "The MCP server {0} sent a bad message on its own stream, which was closed: {1}",
                        endpoint, e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Waits the reconnection time the stream asked for (bounded); false when the transport closed meanwhile. */
    private boolean pause(SseReader reader) throws InterruptedException {
        long millis = reader == null ? DEFAULT_RETRY.toMillis()
                : Math.min(reader.retryMillis().orElse(DEFAULT_RETRY.toMillis()), MAX_RETRY.toMillis());
        Thread.sleep(millis);
        return !closed;
    }

    private HttpResponse<InputStream> get(Optional<String> lastEventId) throws IOException, InterruptedException {
        HttpRequest.Builder get = request().header(HttpHeaders.ACCEPT, EVENT_STREAM).GET();
        lastEventId.ifPresent(id -> get.header(HttpHeaders.LAST_EVENT_ID, id));
        return http.send(get.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    /** A request to the endpoint with the spec's headers, the session and the protocol version. */
    private HttpRequest.Builder request() {
        HttpRequest.Builder b = HttpRequest.newBuilder(endpoint).header(HttpHeaders.CACHE_CONTROL, "no-cache")
                .header(HttpHeaders.PROTOCOL_VERSION, protocolVersion);
        headers.forEach(b::header);
        String session = sessionId.get();
        if (session != null) {
            b.header(HttpHeaders.MCP_SESSION_ID, session);
        }
        return b;
    }

    private static boolean isEventStream(HttpResponse<?> response) {
        return response.headers().firstValue(HttpHeaders.CONTENT_TYPE).orElse("").toLowerCase().contains(EVENT_STREAM);
    }

    /** The error of a non-2xx answer, saying what to change; a lost session is reported so the client starts anew. */
    private RuntimeException refused(String method, HttpResponse<InputStream> response) throws IOException {
        int status = response.statusCode();
        String body;
        try (InputStream in = response.body()) {
            body = new String(in.readNBytes(300), StandardCharsets.UTF_8).strip().replaceAll("\\s+", " ");
        }
        String session = sessionId.get();
        if ((status == 404 || status == 400) && session != null) {
            sessionId.compareAndSet(session, null);
            listening.set(false);
            RuntimeException lost = new McpTransportSessionNotFoundException("The MCP server no longer knows session "
                    + session + " (HTTP " + status + " to a " + method + "); the client starts a new one.");
            exceptionHandler.accept(lost);
            return lost;
        }
        if (status == 401 || status == 403) {
            return new McpTransportException("The MCP server refused the request (HTTP " + status + " to a " + method
                    + "): check its bearer token or headers.");
        }
        return new McpTransportException("The MCP server answered HTTP " + status + " to a " + method
                + (body.isEmpty() ? "." : ": " + body));
    }

    private McpSchema.JSONRPCMessage parse(String data) {
        try {
            return McpSchema.deserializeJsonRpcMessage(mapper, data);
        } catch (IOException | RuntimeException e) {
            String shown = data.length() > 120 ? data.substring(0, 120) + "..." : data;
            throw new McpTransportException("The MCP server sent something that is not a JSON-RPC message: '"
                    + shown.replaceAll("\\s+", " ") + "'.", e);
        }
    }

    /** Hands {@code message} to the client session (a response, a request it answers, a notification). */
    private void deliver(McpSchema.JSONRPCMessage message, ContextView ctx) {
        handler.apply(Mono.just(message)).contextWrite(ctx).subscribe(m -> {
        }, e -> LOG.log(Level.WARNING, "Handling an MCP message failed: {0}", e.getMessage()));
    }

    /** Ends request {@code id} with an error response carrying {@code why}, so that its caller fails at once. */
    private void fail(Object id, String why, ContextView ctx) {
        LOG.log(Level.WARNING, "MCP server {0}: {1}", endpoint, why);
        if (id != null && !closed) {
            deliver(McpSchema.JSONRPCResponse.error(id,
                    new McpSchema.JSONRPCResponse.JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, why, null)), ctx);
        }
    }

    /** Ends the streams, then DELETEs the session (within the connect timeout). */
    @Override
    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            closed = true;
            open.forEach(ResumableHttpClientTransport::closeQuietly);
            threads.shutdownNow();
            String session = sessionId.getAndSet(null);
            if (session == null) {
                http.shutdown();
                return Mono.empty();
            }
            HttpRequest.Builder delete = HttpRequest.newBuilder(endpoint).timeout(connectTimeout)
                    .header(HttpHeaders.MCP_SESSION_ID, session).header(HttpHeaders.PROTOCOL_VERSION, protocolVersion)
                    .DELETE();
            headers.forEach(delete::header);
            return Mono.fromFuture(() -> http.sendAsync(delete.build(), HttpResponse.BodyHandlers.discarding()))
                    .timeout(connectTimeout.plusSeconds(1))
                    .doOnError(e -> LOG.log(Level.DEBUG, "Ending the MCP session failed: {0}", e.getMessage()))
                    .onErrorComplete().doFinally(s -> http.shutdown()).then();
        });
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "Closing an MCP stream failed", e);
        }
    }
}

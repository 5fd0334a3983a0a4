package dev.engram.cli;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Stands in front of the MCP SDK's stdio transport, which stops reading for good at the first line it
 * cannot read (and then never sees the end of the input either). Each line from the client is read
 * here, at most {@link #MAX_LINE_BYTES} of it held in memory, and checked: a line that is not JSON is
 * answered with a JSON-RPC parse error ({@code -32700}); one that is too long, nests deeper than
 * Jackson's limit or is not a JSON-RPC message with an invalid request ({@code -32600}); each with the
 * message's id when it can be read, else {@code null}. Only lines that pass reach the SDK. Blank lines
 * are skipped. At the end of the input {@code onEnd} runs (it waits for the answers still due) and the
 * SDK sees the end.
 */
final class McpLineGuard extends InputStream {
    private static final Logger LOG = LoggerFactory.getLogger(McpLineGuard.class);
    /** The longest line accepted: 16 MiB. */
    static final int MAX_LINE_BYTES = 16 << 20;
    static final int PARSE_ERROR = McpSchema.ErrorCodes.PARSE_ERROR;
    static final int INVALID_REQUEST = McpSchema.ErrorCodes.INVALID_REQUEST;

    /** What the guard does with each request it passes on: counting it, so that the end waits for its answer. */
    interface Listener {
        void requestPassed();
    }

    private final InputStream client;
    private final OutputStream answers;
    private final Object answerLock;
    private final McpJsonMapper mapper;
    private final Listener listener;
    private final Runnable onEnd;
    private final byte[] chunk = new byte[64 * 1024];
    private int chunkPos;
    private int chunkEnd;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private byte[] pending = new byte[0];
    private int pendingPos;
    private boolean eof;
    private boolean ended;
    /** The most bytes of one line held at once, for tests. */
    private int mostHeld;

    /**
     * @param client     the client's input
     * @param answers    where error answers go, written under {@code answerLock} (the lock the SDK writes under)
     * @param answerLock the lock of the protocol output
     * @param mapper     the SDK's mapper, to check each message as the SDK will read it
     * @param listener   told of each request passed on
     * @param onEnd      run once at the end of the input, before the SDK sees it
     */
    McpLineGuard(InputStream client, OutputStream answers, Object answerLock, McpJsonMapper mapper, Listener listener,
            Runnable onEnd) {
        this.client = client;
        this.answers = answers;
        this.answerLock = answerLock;
        this.mapper = mapper;
        this.listener = listener;
        this.onEnd = onEnd;
    }

    int mostHeld() {
        return mostHeld;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (pendingPos == pending.length) {
            if (ended) {
                return -1;
            }
            try {
                nextLine();
            } catch (IOException e) {
                // The client's side is broken (its input unreadable, or it stopped reading our answers): end as at EOF,
                // so that the command ends too, instead of the SDK's reader stopping on an error no one waits for.
                LOG.warn("The MCP client's stream failed; ending the session: {}", e.getMessage());
                end();
            }
        }
        int n = Math.min(len, pending.length - pendingPos);
        System.arraycopy(pending, pendingPos, buf, off, n);
        pendingPos += n;
        return n;
    }

    /** Reads the next line and either queues it for the SDK or answers it; at the end, runs {@code onEnd}. */
    private void nextLine() throws IOException {
        if (eof) {
            end();
            return;
        }
        line.reset();
        boolean tooLong = false;
        long length = 0;
        while (true) {
            if (chunkPos == chunkEnd) {
                int n = client.read(chunk, 0, chunk.length);
                if (n < 0) {
                    eof = true;
                    if (length > 0) {
                        check(tooLong, length); // a last line without its newline goes to the SDK before the end does
                    } else {
                        end();
                    }
                    return;
                }
                chunkPos = 0;
                chunkEnd = n;
            }
            int newline = indexOf(chunk, chunkPos, chunkEnd, (byte) '\n');
            int stop = newline < 0 ? chunkEnd : newline;
            int take = stop - chunkPos;
            length += take;
            // Past the limit the rest of the line is counted and dropped; what is kept is enough to find its id.
            int room = MAX_LINE_BYTES - line.size();
            if (take > room) {
                tooLong = true;
            }
            line.write(chunk, chunkPos, Math.min(take, Math.max(room, 0)));
            mostHeld = Math.max(mostHeld, line.size());
            chunkPos = newline < 0 ? chunkEnd : newline + 1;
            if (newline >= 0) {
                check(tooLong, length);
                return;
            }
        }
    }

    private void end() {
        if (!ended) {
            ended = true;
            onEnd.run();
        }
    }

    private static int indexOf(byte[] a, int from, int to, byte b) {
        for (int i = from; i < to; i++) {
            if (a[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** Passes the line just read on to the SDK, or answers it with an error. */
    private void check(boolean tooLong, long length) throws IOException {
        byte[] bytes = line.toByteArray();
        int end = bytes.length;
        if (end > 0 && bytes[end - 1] == '\r') {
            end--;
        }
        if (tooLong) {
            refuse(INVALID_REQUEST, "The message is " + length + " bytes long, more than the " + MAX_LINE_BYTES
                    + " bytes one message may have.", idOf(bytes, end));
            return;
        }
        String text = new String(bytes, 0, end, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            return;
        }
        JsonNode tree;
        try {
            tree = Json.MAPPER.readTree(text);
        } catch (StreamConstraintsException e) {
            refuse(INVALID_REQUEST, "The message exceeds a limit of the JSON reader: " + e.getOriginalMessage(),
                    idOf(bytes, end));
            return;
        } catch (JacksonException e) {
            refuse(PARSE_ERROR, "The message is not valid JSON: " + e.getOriginalMessage(), idOf(bytes, end));
            return;
        }
        Optional<JsonNode> id = tree.isObject() ? Optional.ofNullable(tree.get("id")).filter(n -> n.isNumber() || n.isString())
                : Optional.empty();
        if (!tree.isObject() || !"2.0".equals(tree.path("jsonrpc").asString(""))) {
            refuse(INVALID_REQUEST, "The message is not a JSON-RPC 2.0 object (it needs \"jsonrpc\": \"2.0\").", id);
            return;
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(mapper, text);
        } catch (Exception e) {
            refuse(INVALID_REQUEST, "The message is not a JSON-RPC request, notification or response: " + e.getMessage(), id);
            return;
        }
        if (message instanceof McpSchema.JSONRPCRequest) {
            listener.requestPassed();
        }
        byte[] out = Arrays.copyOf(bytes, end + 1);
        out[end] = '\n';
        pending = out;
        pendingPos = 0;
    }

    /**
     * The id of a message that could not be read whole: a top-level {@code "id"} with a number or string,
     * read with a streaming parser before the point where the message went wrong.
     */
    private static Optional<JsonNode> idOf(byte[] bytes, int end) {
        try (JsonParser p = Json.MAPPER.createParser(bytes, 0, end)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            for (JsonToken t = p.nextToken(); t == JsonToken.PROPERTY_NAME; t = p.nextToken()) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (value == null) {
                    return Optional.empty();
                }
                if (name.equals("id")) {
                    return switch (value) {
                        case VALUE_NUMBER_INT -> Optional.of(Json.MAPPER.getNodeFactory().numberNode(p.getLongValue()));
                        case VALUE_STRING -> Optional.of(Json.MAPPER.getNodeFactory().stringNode(p.getString()));
                        default -> Optional.empty();
                    };
                }
                p.skipChildren();
            }
        } catch (JacksonException e) {
            // the message breaks before its id
        }
        return Optional.empty();
    }

    private void refuse(int code, String message, Optional<JsonNode> id) throws IOException {
        LOG.warn("Refused a message from the MCP client ({}): {}", code, message);
        ObjectNode answer = Json.MAPPER.createObjectNode().put("jsonrpc", "2.0");
        answer.set("id", id.orElse(Json.MAPPER.getNodeFactory().nullNode()));
        answer.putObject("error").put("code", code).put("message", message);
        byte[] bytes = (Json.MAPPER.writeValueAsString(answer) + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (answerLock) {
            answers.write(bytes);
            answers.flush();
        }
    }
}

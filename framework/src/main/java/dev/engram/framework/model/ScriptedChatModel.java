package dev.engram.framework.model;

import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * A model that replays a JSON script of assistant turns, in order, for deterministic tests, demos,
 * and your own agent tests. The format:
 *
 * <pre>{@code
 * {"turns": [
 *   {"text": "Let me remember that.",
 *    "tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Likes tea"}}],
 *    "expect_in_prompt": ["likes tea"]},
 *   {"tool_calls": [{"id": "c2", "name": "search", "arguments": "{not json"}]},
 *   {"text": "Done."}
 * ]}
 * }</pre>
 *
 * <p>A turn has optional {@code text}, optional {@code reasoning} (the model's own thinking, in the response and, by
 * {@link #stream}, reported before the text), optional {@code reasoning_signature} and {@code redacted_reasoning} (an
 * array of strings: reasoning a provider gave only encrypted) and optional {@code tool_calls}; a call's
 * {@code arguments} is a
 * JSON object or a raw string (so that a test can send malformed arguments), its {@code id} defaults to
 * {@code call_<turn>_<n>}. {@code expect_in_prompt} lists strings that must occur in the request the
 * turn answers (its messages and tool names): a missing one fails loudly, naming it. Asking for a turn
 * after the last is an error. A bare array of turns is accepted too. Thread-safe.
 *
 * <p>A script object may say {@code "vision": true}: the model then takes images, as data or by address (each shows in
 * the prompt text as {@code [image image/png, N bytes]} or {@code [image URL]}, for {@code expect_in_prompt}); without
 * it the model cannot see, and a request with images fails as a provider's would.
 */
public final class ScriptedChatModel implements ChatModel {
    /** Streamed text and arguments come in pieces of this many characters. */
    static final int CHUNK = 16;

    /**
     * One scripted turn.
     *
     * @param reasoning the model's reasoning: in the response, and its text reported by {@link #stream} before the text
     */
    public record Turn(String text, Reasoning reasoning, List<ToolCall> toolCalls, List<String> expectInPrompt) {
        public Turn {
            Objects.requireNonNull(text, "text");
            Objects.requireNonNull(reasoning, "reasoning");
            toolCalls = List.copyOf(toolCalls);
            expectInPrompt = List.copyOf(expectInPrompt);
        }

        /** A turn whose reasoning is only text ({@link Reasoning#of}). */
        public Turn(String text, String reasoning, List<ToolCall> toolCalls, List<String> expectInPrompt) {
            this(text, Reasoning.of(reasoning), toolCalls, expectInPrompt);
        }

        /** A turn without reasoning. */
        public Turn(String text, List<ToolCall> toolCalls, List<String> expectInPrompt) {
            this(text, Reasoning.NONE, toolCalls, expectInPrompt);
        }
    }

    private final String name;
    private final List<Turn> turns;
    private final AtomicInteger next = new AtomicInteger();
    private final List<ChatRequest> requests = java.util.Collections.synchronizedList(new ArrayList<>());

    private final boolean vision;

    private ScriptedChatModel(String name, List<Turn> turns, boolean vision) {
        this.name = name;
        this.turns = List.copyOf(turns);
        this.vision = vision;
    }

    /** A model from turns built in code; it cannot see ({@link #withVision()}). */
    public static ScriptedChatModel of(List<Turn> turns) {
        return new ScriptedChatModel("script:inline", turns, false);
    }

    /** A model from a script's JSON text. */
    public static ScriptedChatModel fromJson(String json) {
        return new ScriptedChatModel("script:inline", parse(json, "the script"), vision(json, "the script"));
    }

    /** This script, on a model that takes images (as data and by address); no turn has been played on it. */
    public ScriptedChatModel withVision() {
        return new ScriptedChatModel(name, turns, true);
    }

    /** Whether the script says {@code "vision": true}. */
    @Override
    public boolean supportsImages() {
        return vision;
    }

    /** As {@link #supportsImages()}: a scripted model that sees takes images by address too. */
    @Override
    public boolean supportsImageUrls() {
        return vision;
    }

    private static boolean vision(String json, String what) {
        JsonNode v = ModelJson.MAPPER.readTree(json).path("vision");
        if (!v.isMissingNode() && !v.isBoolean()) {
            throw new IllegalArgumentException(what + ": \"vision\" must be true or false");
        }
        return v.asBoolean(false);
    }

    /** A model from a script file. */
    public static ScriptedChatModel fromFile(Path file) {
        String json;
        try {
            json = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read model script " + file + ": " + e.getMessage(), e);
        }
        return new ScriptedChatModel("script:" + file.getFileName(), parse(json, "model script " + file),
                vision(json, "model script " + file));
    }

    private static List<Turn> parse(String json, String what) {
        JsonNode root;
        try {
            root = ModelJson.MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(what + " is not valid JSON: " + e.getOriginalMessage(), e);
        }
        JsonNode turns = root.isArray() ? root : root.path("turns");
        if (!turns.isArray()) {
            throw new IllegalArgumentException(what + " needs a \"turns\" array (or to be an array of turns)");
        }
        List<Turn> out = new ArrayList<>();
        int t = 0;
        for (JsonNode turn : turns) {
            t++;
            if (!turn.isObject()) {
                throw new IllegalArgumentException(what + ": turn " + t + " is not an object");
            }
            List<ToolCall> calls = new ArrayList<>();
            int c = 0;
            for (JsonNode call : turn.path("tool_calls")) {
                c++;
                String toolName = call.path("name").asString("");
                if (toolName.isBlank()) {
                    throw new IllegalArgumentException(what + ": tool call " + c + " of turn " + t + " has no \"name\"");
                }
                JsonNode args = call.path("arguments");
                String arguments = args.isMissingNode() || args.isNull() ? "{}" : args.isString() ? args.asString() : ModelJson.write(args);
                calls.add(new ToolCall(call.path("id").asString("call_" + t + "_" + c), toolName, arguments));
            }
            List<String> expected = new ArrayList<>();
            turn.path("expect_in_prompt").forEach(e -> expected.add(e.asString()));
            out.add(new Turn(turn.path("text").asString(""), reasoning(turn, what + ": turn " + t), calls, expected));
        }
        return out;
    }

    private static Reasoning reasoning(JsonNode turn, String what) {
        List<String> redacted = new ArrayList<>();
        JsonNode r = turn.path("redacted_reasoning");
        if (!r.isMissingNode() && !r.isArray()) {
            throw new IllegalArgumentException(what + ": \"redacted_reasoning\" must be an array of strings");
        }
        for (JsonNode data : r) {
            if (!data.isString()) {
                throw new IllegalArgumentException(what + ": \"redacted_reasoning\" must be an array of strings");
            }
            redacted.add(data.asString());
        }
        return new Reasoning(turn.path("reasoning").asString(""), turn.path("reasoning_signature").asString(""), redacted);
    }

    @Override
    public String name() {
        return name;
    }

    /** How many turns have been played. */
    public int played() {
        return Math.min(next.get(), turns.size());
    }

    /** Turns not played yet. */
    public int remaining() {
        return turns.size() - played();
    }

    /** The requests answered so far, in order, for assertions. */
    public List<ChatRequest> requests() {
        return List.copyOf(requests);
    }

    @Override
    public ChatResponse chat(ChatRequest request) {
        return play(request).getValue();
    }

    /** Plays the next turn: the turn and the response it gives. */
    private Map.Entry<Turn, ChatResponse> play(ChatRequest request) {
        Objects.requireNonNull(request, "request");
        Vision.check(this, request);
        int index = next.getAndIncrement();
        if (index >= turns.size()) {
            throw new ModelException("The model script has " + turns.size() + " turns and all were played; turn "
                    + (index + 1) + " was requested. Add turns to the script or end the conversation sooner.");
        }
        Turn turn = turns.get(index);
        String prompt = promptText(request);
        for (String expected : turn.expectInPrompt()) {
            if (!prompt.contains(expected)) {
                throw new ScriptMismatchException("Scripted turn " + (index + 1) + " expects the prompt to contain \""
                        + expected + "\", but it does not. The prompt ends with: "
                        + prompt.substring(Math.max(0, prompt.length() - 1_500)));
            }
        }
        requests.add(request);
        ChatResponse.StopReason stop = turn.toolCalls().isEmpty() ? ChatResponse.StopReason.END_TURN
                : ChatResponse.StopReason.TOOL_CALLS;
        int out = (turn.text().length() + turn.toolCalls().stream().mapToInt(c -> c.arguments().length() + c.name().length()).sum()) / 4;
        return Map.entry(turn, new ChatResponse(new ChatMessage.Assistant(turn.text(), turn.toolCalls(), turn.reasoning()),
                new ChatResponse.Usage(prompt.length() / 4, out), stop));
    }

    /**
     * Plays the next turn as a provider would stream it: its reasoning, then its text, then each tool
     * call (id and name first, then its arguments), all in pieces of {@value #CHUNK} characters.
     * Returns the same response as {@link #chat}.
     */
    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
        Map.Entry<Turn, ChatResponse> played = play(request);
        ChatResponse response = played.getValue();
        chunks(played.getKey().reasoning().text(), listener::onReasoning);
        chunks(response.message().text(), listener::onText);
        List<ToolCall> calls = response.message().toolCalls();
        for (int i = 0; i < calls.size(); i++) {
            int call = i;
            listener.onToolCallDelta(call, calls.get(i).id(), calls.get(i).name(), "");
            chunks(calls.get(i).arguments(), piece -> listener.onToolCallDelta(call, "", "", piece));
        }
        calls.forEach(listener::onToolCall);
        return response;
    }

    private static void chunks(String text, java.util.function.Consumer<String> to) {
        for (int i = 0; i < text.length(); i += CHUNK) {
            to.accept(text.substring(i, Math.min(text.length(), i + CHUNK)));
        }
    }

    /** Everything the model would read: messages in order, then the tool names. */
    static String promptText(ChatRequest request) {
        StringBuilder sb = new StringBuilder();
        for (ChatMessage m : request.messages()) {
            switch (m) {
                case ChatMessage.System s -> sb.append("[system] ").append(s.text());
                case ChatMessage.User u -> {
                    sb.append("[user] ").append(u.text());
                    for (Image image : u.images()) {
                        sb.append(switch (image) {
                            case Image.Inline in -> " [image " + in.mediaType() + ", " + in.data().length + " bytes]";
                            case Image.Url at -> " [image " + at.url() + "]";
                        });
                    }
                }
                case ChatMessage.Assistant a -> {
                    sb.append("[assistant] ").append(a.text());
                    a.toolCalls().forEach(c -> sb.append(" (call ").append(c.name()).append(' ').append(c.arguments()).append(')'));
                }
                case ChatMessage.ToolResult r -> sb.append("[tool ").append(r.toolName()).append("] ").append(r.content());
            }
            sb.append('\n');
        }
        for (ToolDefinition t : request.tools()) {
            sb.append("[tool definition] ").append(t.name()).append('\n');
        }
        return sb.toString();
    }

    /** A scripted turn's expectation about the prompt was not met. */
    public static final class ScriptMismatchException extends ModelException {
        private static final long serialVersionUID = 1L;

        public ScriptMismatchException(String message) {
            super(message);
        }
    }
}

package dev.engram.framework.model;

import dev.engram.framework.ToolCall;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/**
 * A language model that chats and calls tools. One small interface for every provider; get one from
 * a spec string ({@link #of(String)}), a typed factory, or {@link #scripted(Path)} for tests.
 *
 * <p>Calls block; interrupting the calling thread aborts the HTTP exchange and raises
 * {@link ModelCancelledException}. Transient failures (429, 5xx, timeouts) are retried with
 * exponential backoff and jitter, honouring {@code Retry-After}; other 4xx fail at once with the
 * provider's message ({@link ModelHttpException}), and a too-long prompt raises
 * {@link ContextLengthExceededException} so that an agent can compact its context and retry.
 */
public interface ChatModel {
    /** A description such as {@code openai:gpt-4o-mini}; never contains a key. */
    String name();

    ChatResponse chat(ChatRequest request);

    /**
     * Whether this model takes images in user messages ({@link ChatMessage.User#images()}). A model that does not
     * refuses a request with images ({@link IllegalArgumentException} naming it); callers ask first, before they store
     * such a message. The default is {@code false}.
     */
    default boolean supportsImages() {
        return false;
    }

    /**
     * Whether this model takes images by address ({@link Image.Url}), which its provider fetches; a model that sees
     * only images sent as data refuses them. The default is {@code false}.
     */
    default boolean supportsImageUrls() {
        return false;
    }

    /**
     * Streams the answer to {@code listener} as it arrives and returns it whole at the end: the same
     * response {@link #chat} would have returned. The default does not stream: it calls {@link #chat}
     * and reports the result in one piece.
     */
    default ChatResponse stream(ChatRequest request, StreamListener listener) {
        ChatResponse response = chat(request);
        if (!response.message().text().isEmpty()) {
            listener.onText(response.message().text());
        }
        List<ToolCall> calls = response.message().toolCalls();
        for (int i = 0; i < calls.size(); i++) {
            listener.onToolCallDelta(i, calls.get(i).id(), calls.get(i).name(), calls.get(i).arguments());
        }
        calls.forEach(listener::onToolCall);
        return response;
    }

    /**
     * The JSON body this model would send its provider for {@code request} (as a streamed call when {@code stream}),
     * built as a call builds it but not sent: for a client that inspects what its agent asks. The provider adapters
     * answer their own wire format; the default, for a model that sends no request of its own (a scripted or
     * in-process model), is the request in OpenAI's Chat Completions format with {@link #name()} as its model.
     *
     * @throws IllegalArgumentException if the model refuses the request as it would refuse to send it (an image it
     *                                  cannot see)
     */
    default ObjectNode requestBody(ChatRequest request, boolean stream) {
        return OpenAiChatModel.body(name(), request, stream);
    }

    /**
     * A model from a spec: {@code openai:gpt-4o-mini}, {@code anthropic:claude-sonnet-4-5},
     * {@code gemini:gemini-2.5-flash}, {@code ollama:llama3.1}, {@code http://host:port/v1#model}
     * (any OpenAI-compatible server), or {@code script:FILE}. Keys come from the standard environment
     * variables.
     *
     * @throws IllegalArgumentException if the spec is malformed or a needed key is missing, saying which
     */
    static ChatModel of(String spec) {
        return of(ModelSpec.parse(spec, System.getenv()));
    }

    /** A model from a parsed spec. */
    static ChatModel of(ModelSpec spec) {
        return Providers.create(spec);
    }

    /** A model from a spec, with keys and URLs from {@code environment} instead of the process environment. */
    static ChatModel of(String spec, Map<String, String> environment) {
        return of(ModelSpec.parse(spec, environment));
    }

    /** The scripted model of a JSON script file; see {@link ScriptedChatModel}. */
    static ScriptedChatModel scripted(Path script) {
        return ScriptedChatModel.fromFile(script);
    }
}

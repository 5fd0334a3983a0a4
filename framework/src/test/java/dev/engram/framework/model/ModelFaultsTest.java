package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.FaultyProvider.Fault;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;

/**
 * Providers that hang or answer garbage, for the OpenAI-compatible and the Anthropic formats: every call
 * ends within its (short, test-set) timeout with a {@link ModelException} naming the provider, and the
 * timeouts name the timeout; a trickle of bytes does not keep a call alive past it.
 */
class ModelFaultsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    /** Well above the timeout (the machine may be busy), far below a hang: what "ended within its timeout" means here. */
    private static final Duration ENDS_WITHIN = Duration.ofSeconds(6);

    private static final String OPENAI_FIRST = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once\"}}]}\n\n";
    private static final String ANTHROPIC_FIRST = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
            + "\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Once\"}}\n\n";

    private static ChatRequest request() {
        return new ChatRequest(List.of(new ChatMessage.User("Tell me a story.")), List.of(), ChatOptions.defaults());
    }

    /** The two formats against one faulty provider: the OpenAI-compatible endpoint and Anthropic. */
    private static void forEachFormat(Fault fault, ThrowingConsumer<Provider> check) throws Throwable {
        for (Provider p : List.of(Provider.OPENAI, Provider.ANTHROPIC)) {
            try (FaultyProvider server = new FaultyProvider(fault, p == Provider.OPENAI ? OPENAI_FIRST : ANTHROPIC_FIRST)) {
                check.accept(p.at(server.port()));
            }
        }
    }

    /** A provider format bound to a port. */
    private record Provider(String format, ChatModel model, String name) {
        static final Provider OPENAI = new Provider("openai", null, null);
        static final Provider ANTHROPIC = new Provider("anthropic", null, null);

        Provider at(int port) {
            ModelSpec spec = format.equals("openai")
                    ? ModelSpec.parse("http://127.0.0.1:" + port + "/v1#test-model", Map.of())
                    : ModelSpec.parse("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "k"))
                            .withBaseUrl(URI.create("http://127.0.0.1:" + port));
            ChatModel m = ChatModel.of(spec.withTimeout(TIMEOUT).withRetry(RetryPolicy.none()));
            return new Provider(format, m, format.equals("openai") ? "openai-compatible server 127.0.0.1:" + port : "anthropic");
        }
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertEndsInTime(Runnable call) {
        long start = System.nanoTime();
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(call::run);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ENDS_WITHIN);
        return assertThat(thrown).isNotNull();
    }

    @Test
    void aProviderThatAcceptsAndNeverAnswersTimesOutNamingItselfAndTheTimeout() throws Throwable {
        forEachFormat(Fault.SILENT, p -> {
            assertEndsInTime(() -> p.model().chat(request())).isInstanceOf(ModelTimeoutException.class)
                    .hasMessageContaining(p.name()).hasMessageContaining("within the timeout of 1 s");
            assertEndsInTime(() -> p.model().stream(request(), StreamListener.NONE)).isInstanceOf(ModelTimeoutException.class)
                    .hasMessageContaining(p.name()).hasMessageContaining("within the timeout of 1 s");
        });
    }

    @Test
    void anAnswerThatIsNotJsonFailsNamingTheProvider() throws Throwable {
        forEachFormat(Fault.NOT_JSON, p -> assertEndsInTime(() -> p.model().chat(request()))
                .isExactlyInstanceOf(ModelException.class).hasMessageContaining(p.name()).hasMessageContaining("not JSON"));
    }

    @Test
    void aStreamEventThatIsNotJsonFailsNamingTheProvider() throws Throwable {
        forEachFormat(Fault.STREAM_NOT_JSON, p -> assertEndsInTime(() -> p.model().stream(request(), StreamListener.NONE))
                .isExactlyInstanceOf(ModelException.class).hasMessageContaining(p.name())
                .hasMessageContaining("stream event that is not JSON"));
    }

    @Test
    void aStreamCutOffHalfwayFailsInsteadOfPassingAsAnAnswer() throws Throwable {
        forEachFormat(Fault.TRUNCATED_STREAM, p -> assertEndsInTime(() -> p.model().stream(request(), StreamListener.NONE))
                .isExactlyInstanceOf(ModelException.class).hasMessageContaining(p.name())
                .hasMessageContaining("ended its stream before the answer was complete"));
    }

    @Test
    void aTrickleOfBytesDoesNotKeepAStreamAlivePastTheTimeout() throws Throwable {
        forEachFormat(Fault.TRICKLE, p -> {
            assertEndsInTime(() -> p.model().stream(request(), StreamListener.NONE)).isInstanceOf(ModelTimeoutException.class)
                    .hasMessageContaining(p.name()).hasMessageContaining("did not finish its answer within the timeout of 1 s");
            assertEndsInTime(() -> p.model().chat(request())).isInstanceOf(ModelTimeoutException.class)
                    .hasMessageContaining(p.name());
        });
    }
}

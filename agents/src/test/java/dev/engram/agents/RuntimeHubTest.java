package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The models a runtime resolves from specs are kept up to a bound; the ones registered with it always. */
class RuntimeHubTest {
    /** A model that is never called: only its identity matters here. */
    private record Named(String name) implements ChatModel {
        @Override
        public ChatResponse chat(ChatRequest request) {
            throw new UnsupportedOperationException("not called in this test");
        }
    }

    @Test
    void resolvedModelsStayWithinTheBoundAndRegisteredOnesAreKept() {
        AtomicInteger resolutions = new AtomicInteger();
        ChatModel registered = new Named("registered");
        RuntimeHub hub = new RuntimeHub(Map.of("test:registered", registered), spec -> {
            resolutions.incrementAndGet();
            return new Named(spec);
        }, List.of());

        ChatModel first = hub.model("openai:model-0");
        assertThat(hub.model("openai:model-0")).isSameAs(first);
        assertThat(resolutions).hasValue(1);
        for (int i = 1; i <= RuntimeHub.MAX_RESOLVED; i++) {
            hub.model("openai:model-" + i);
            assertThat(hub.resolvedCount()).isBetween(1, RuntimeHub.MAX_RESOLVED);
        }

        assertThat(resolutions).hasValue(RuntimeHub.MAX_RESOLVED + 1);
        assertThat(hub.model("test:registered")).isSameAs(registered);
        assertThat(hub.model("openai:model-0").name()).isEqualTo("openai:model-0"); // resolved again, as the same spec
    }
}

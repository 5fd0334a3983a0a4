package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolContextTest {
    @Test
    void progressReportsWhereTheBuilderSaidAndSurvivesToBuilder() {
        List<String> seen = new ArrayList<>();
        ToolContext context = ToolContext.builder().progress(seen::add).build();

        context.toBuilder().callId("c1").build().progress().report("line 1\n");

        assertThat(seen).containsExactly("line 1\n");
    }

    @Test
    void aContextWithoutProgressReportsNowhereAndHasNoModel() {
        ToolContext context = ToolContext.empty();

        context.progress().report("ignored");

        assertThat(context.progress()).isSameAs(ToolProgress.NONE);
        assertThat(context.chatModel()).isEmpty();
    }

    @Test
    void theAgentsModelIsCarriedAndNullIsRefused() {
        ChatModel model = new ChatModel() {
            @Override
            public String name() {
                return "test:model";
            }

            @Override
            public ChatResponse chat(ChatRequest request) {
                throw new UnsupportedOperationException("not called");
            }
        };

        assertThat(ToolContext.builder().chatModel(model).build().toBuilder().build().chatModel()).containsSame(model);
        assertThatThrownBy(() -> ToolContext.builder().progress(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("progress");
        assertThatThrownBy(() -> ToolContext.builder().chatModel(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("chat model");
    }
}

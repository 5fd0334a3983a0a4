package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PromptTokensTest {

    private static ConversationMessage message(long id, String content) {
        return new ConversationMessage(id, "helper", "ana", "s", MessageRole.USER, content, List.of(), Optional.empty(),
                Instant.EPOCH, true, Optional.empty());
    }

    @Test
    void aCorrectedMessageIsCountedAgainUnderItsOwnIdAndAnUnchangedOneFromTheCache() {
        PromptTokens tokens = new PromptTokens(TokenCounter.estimate());
        int before = tokens.count(message(7, "tea"));
        assertThat(tokens.count(message(7, "tea"))).as("same text, re-read: the cached count").isEqualTo(before);

        int after = tokens.count(message(7, "tea, and a long note about the green tea grown in the Azores since 1820"));
        assertThat(after).as("the same id with a corrected text is counted again").isGreaterThan(before);
        assertThat(tokens.count(message(7, "tea, and a long note about the green tea grown in the Azores since 1820")))
                .isEqualTo(after);
    }
}

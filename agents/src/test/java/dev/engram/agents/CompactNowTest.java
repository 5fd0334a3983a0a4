package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.model.ChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Agent#compact(String)}: summarise and evict now, one session at a time; nothing changes when it cannot. */
class CompactNowTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final String CONV = "conv-trip";

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent agent(ChatModel model) {
        fx = new AgentFixture(dir).open(b -> b.model("script:test", model));
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test")
                .systemPrompt("You are terse.").tools("send_message").build());
    }

    private void talk(String session, String... lines) {
        for (String line : lines) {
            fx.store.messages().append(ANA, NewMessage.user(session, line));
            fx.store.messages().append(ANA, NewMessage.assistant(session, "Noted: " + line, List.of()));
        }
    }

    @Test
    void aConversationIsSummarisedAndEvictedAndTheAgentsOwnHistoryIsNotTouched() {
        Agent agent = agent(script("""
                {"turns": [{"text": "The user plans a trip to Lisbon in May.",
                            "expect_in_prompt": ["To Lisbon.", "In May."]}]}"""));
        talk("default", "My own history.", "Still mine.");
        talk(CONV, "To Lisbon.", "In May.", "By train.", "With Ben.");

        Compaction c = agent.compact(CONV);

        assertThat(c.summary()).isEqualTo("The user plans a trip to Lisbon in May.");
        assertThat(c.messagesBefore()).isEqualTo(8);
        assertThat(c.messagesAfter()).isLessThan(c.messagesBefore());
        List<ConversationMessage> conv = fx.inContext(ANA).stream().filter(m -> m.sessionId().equals(CONV)).toList();
        assertThat(conv).hasSize(c.messagesAfter());
        assertThat(conv).filteredOn(m -> m.role() != MessageRole.SYSTEM).last().extracting(ConversationMessage::content)
                .isEqualTo("Noted: With Ben.");
        assertThat(conv).filteredOn(m -> m.role() == MessageRole.SYSTEM).extracting(ConversationMessage::content)
                .containsExactly(Prompts.SUMMARY_PREFIX + "The user plans a trip to Lisbon in May.");
        assertThat(fx.inContext(ANA).stream().filter(m -> m.sessionId().equals("default")).toList()).hasSize(4);
        assertThat(agent.compilePrompt(CONV).messages().toString()).contains("The user plans a trip").doesNotContain("My own history.");
        assertThat(agent.compilePrompt().messages().toString()).contains("My own history.").doesNotContain("The user plans a trip");
        assertThat(fx.events(AgentEvent.ContextCompacted.class)).hasSize(1);
    }

    @Test
    void tooFewMessagesOrNoneAreRefusedAndNothingChanges() {
        Agent agent = agent(script("{\"turns\": []}"));
        assertThatThrownBy(() -> agent.compact(CONV)).isInstanceOf(AgentException.class)
                .hasMessageContaining("No in-context messages");
        talk(CONV, "Only one question.");
        List<ConversationMessage> before = fx.messages(ANA);
        assertThatThrownBy(() -> agent.compact(CONV)).isInstanceOf(AgentException.class)
                .hasMessageContaining("would not reduce the number of messages");
        assertThatThrownBy(() -> agent.compact(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThat(fx.messages(ANA)).isEqualTo(before);
        assertThat(fx.events(AgentEvent.ContextCompacted.class)).isEmpty();
    }
}

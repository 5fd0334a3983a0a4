package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.Image;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.MessageImage;
import dev.engram.memory.Scope;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A user message that shows images: stored with it, sent to a model that sees, refused before storing for one that cannot. */
class AgentImagesTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G'};
    private static final String TURNS = """
            [{"tool_calls": [{"name": "send_message", "arguments": {"message": "A cat."}}],
              "expect_in_prompt": ["[user] What is this? [image image/png, 4 bytes] [image https://example.com/cat.jpg]"]},
             {"tool_calls": [{"name": "send_message", "arguments": {"message": "Still a cat."}}],
              "expect_in_prompt": ["[image image/png, 4 bytes]", "[user] And now?"]}]""";
    private static final List<MessageImage> IMAGES = List.of(MessageImage.inline("image/png", PNG),
            MessageImage.url("https://example.com/cat.jpg"));

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent agent(ScriptedChatModel model) {
        fx = new AgentFixture(dir).open("script:test", model);
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test").build());
    }

    @Test
    void imagesAreStoredWithTheMessageAndShownToTheModelInEveryLaterStep() {
        ScriptedChatModel eyes = script("{\"vision\": true, \"turns\": " + TURNS + "}");
        Agent agent = agent(eyes);

        agent.send("default", "What is this?", IMAGES);
        agent.send("And now?");

        assertThat(fx.messages(ANA).getFirst().images()).isEqualTo(IMAGES);
        ChatMessage.User first = (ChatMessage.User) eyes.requests().getFirst().messages().get(1);
        assertThat(first.images()).containsExactly(Image.inline("image/png", PNG), Image.url(URI.create("https://example.com/cat.jpg")));
        assertThat(eyes.played()).isEqualTo(2);
    }

    @Test
    void aModelThatCannotSeeIsNamedAndNothingIsStored() {
        ScriptedChatModel blind = script("{\"turns\": " + TURNS + "}");
        Agent agent = agent(blind);

        assertThatThrownBy(() -> agent.send("default", "What is this?", IMAGES)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Agent 'helper''s model script:test cannot see images; send the message without them, or give "
                        + "the agent a model that takes images");
        assertThat(fx.messages(ANA)).isEmpty();
        assertThat(blind.played()).isZero();
        assertThatThrownBy(() -> agent.send("default", " ", List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHistoryWithImagesIsSentToAModelThatCannotTakeThemWithANoteInstead() {
        List<ChatMessage> history = List.of(new ChatMessage.System("sys"), new ChatMessage.User("look",
                List.of(Image.inline("image/png", PNG), Image.url(URI.create("https://example.com/cat.jpg")))));
        List<ChatMessage> blind = Prompts.visibleTo(ScriptedChatModel.of(List.of()), history);
        assertThat(blind.get(1)).isEqualTo(new ChatMessage.User("look\n[2 image(s) left out: model script:inline cannot see images]"));
        List<ChatMessage> seeing = Prompts.visibleTo(ScriptedChatModel.of(List.of()).withVision(), history);
        assertThat(seeing).isSameAs(history);
    }
}

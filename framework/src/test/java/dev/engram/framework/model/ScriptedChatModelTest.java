package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScriptedChatModelTest {
    @TempDir
    Path dir;

    private static final String SCRIPT = """
            {"turns": [
              {"text": "Let me remember that.",
               "tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Likes tea"}}],
               "expect_in_prompt": ["I like tea"]},
              {"tool_calls": [{"id": "bad-1", "name": "search", "arguments": "{not json"}]},
              {"text": "Done."}
            ]}""";

    @Test
    void turnsAreReplayedInOrder() throws Exception {
        Path file = dir.resolve("script.json");
        Files.writeString(file, SCRIPT);
        ScriptedChatModel model = ChatModel.scripted(file);
        assertThat(model.name()).isEqualTo("script:script.json");
        ChatResponse first = model.chat(ChatRequest.of(List.of(new ChatMessage.User("I like tea"))));
        assertThat(first.message().text()).isEqualTo("Let me remember that.");
        assertThat(first.message().toolCalls()).containsExactly(new ToolCall("call_1_1", "block",
                "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"Likes tea\"}"));
        assertThat(first.stopReason()).isEqualTo(ChatResponse.StopReason.TOOL_CALLS);
        ChatResponse second = model.chat(ChatRequest.of(List.of(new ChatMessage.User("x"))));
        assertThat(second.message().toolCalls()).containsExactly(new ToolCall("bad-1", "search", "{not json"));
        List<String> streamed = new ArrayList<>();
        ChatResponse third = model.stream(ChatRequest.of(List.of(new ChatMessage.User("x"))), new StreamListener() {
            @Override
            public void onText(String delta) {
                streamed.add(delta);
            }
        });
        assertThat(third.stopReason()).isEqualTo(ChatResponse.StopReason.END_TURN);
        assertThat(String.join("", streamed)).isEqualTo("Done.");
        assertThat(model.remaining()).isZero();
        assertThat(model.requests()).hasSize(3);
    }

    @Test
    void aMissingExpectedStringFailsLoudlyNamingIt() {
        ScriptedChatModel model = ScriptedChatModel.fromJson(SCRIPT);
        assertThatThrownBy(() -> model.chat(ChatRequest.of(List.of(new ChatMessage.User("I like coffee")))))
                .isInstanceOf(ScriptedChatModel.ScriptMismatchException.class)
                .hasMessageStartingWith("Scripted turn 1 expects the prompt to contain \"I like tea\", but it does not.")
                .hasMessageContaining("[user] I like coffee");
    }

    @Test
    void runningPastTheEndIsAClearError() {
        ScriptedChatModel model = ScriptedChatModel.fromJson("[{\"text\": \"only\"}]");
        model.chat(ChatRequest.of(List.of(new ChatMessage.User("a"))));
        assertThatThrownBy(() -> model.chat(ChatRequest.of(List.of(new ChatMessage.User("b")))))
                .isInstanceOf(ModelException.class)
                .hasMessage("The model script has 1 turns and all were played; turn 2 was requested. "
                        + "Add turns to the script or end the conversation sooner.");
    }

    @Test
    void malformedScriptsAreRejectedWithTheirProblem() {
        assertThatThrownBy(() -> ScriptedChatModel.fromJson("{turns: [")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the script is not valid JSON");
        assertThatThrownBy(() -> ScriptedChatModel.fromJson("{\"steps\": []}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the script needs a \"turns\" array (or to be an array of turns)");
        assertThatThrownBy(() -> ScriptedChatModel.fromJson("[{\"tool_calls\": [{\"arguments\": {}}]}]"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the script: tool call 1 of turn 1 has no \"name\"");
        assertThatThrownBy(() -> ChatModel.of("script:/no/such/file.json")).isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessageStartingWith("cannot read model script /no/such/file.json");
    }
}

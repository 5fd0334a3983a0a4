package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ModelException;
import dev.engram.framework.model.ToolChoice;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/agents/{id}/generate}: one completion of the agent's model with exactly the prompt (and system
 * prompt) given, a structured answer through the forced {@code structured_output} tool, nothing stored; bad input and a
 * failing model are refused with nothing changed; another user's key gets 404.
 */
class GenerateEndpointsTest {
    /** Answers with the prompt it was given, or a structured_output call when asked for one; records every request. */
    static final class RecordingModel implements ChatModel {
        final List<ChatRequest> requests = new CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            requests.add(request);
            String prompt = ((ChatMessage.User) request.messages().getLast()).text();
            if (prompt.equals("fail")) {
                throw new ModelException("provider secret words");
            }
            if (!request.tools().isEmpty()) {
                return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall("c1", request.tools().getFirst().name(),
                        "{\"city\":\"Lisbon\",\"days\":3}"))), new ChatResponse.Usage(20, 6), ChatResponse.StopReason.TOOL_CALLS);
            }
            return new ChatResponse(new ChatMessage.Assistant("You said: " + prompt, List.of()), new ChatResponse.Usage(12, 4),
                    ChatResponse.StopReason.END_TURN);
        }
    }

    @TempDir
    Path dir;
    ServerFixture fx;
    final RecordingModel model = new RecordingModel();
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:rec", model)));
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "gen", "model", "test:rec",
                "memory_blocks", List.of(obj("label", "human", "value", "Ana likes tea."))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        agent = created.json().path("id").asString();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private long stored() {
        return fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all().withLimit(10_000)).size();
    }

    @Test
    void generateAsksTheAgentsModelExactlyThePromptAndStoresNothing() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/generate", obj("prompt", "hello there",
                "system_prompt", "Be terse."));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("content").asString()).isEqualTo("You said: hello there");
        assertThat(r.json().path("model").asString()).isNotBlank();
        assertThat(r.json().path("usage").path("prompt_tokens").asInt()).isEqualTo(12);
        assertThat(r.json().path("usage").path("completion_tokens").asInt()).isEqualTo(4);
        assertThat(r.json().path("usage").path("total_tokens").asInt()).isEqualTo(16);
        ChatRequest sent = model.requests.getLast();
        assertThat(sent.messages()).containsExactly(new ChatMessage.System("Be terse."), new ChatMessage.User("hello there"));
        assertThat(sent.tools()).isEmpty();
        assertThat(stored()).isZero();
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/messages").json().size()).isZero();
    }

    @Test
    void aResponseSchemaIsAnsweredThroughTheForcedStructuredOutputTool() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/generate", obj("prompt", "plan a trip",
                "response_schema", Map.of("type", "object", "properties", Map.of("city", Map.of("type", "string"),
                        "days", Map.of("type", "integer")))));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(ServerFixture.JSON.readTree(r.json().path("content").asString()).path("city").asString()).isEqualTo("Lisbon");
        ChatRequest sent = model.requests.getLast();
        assertThat(sent.tools()).singleElement().satisfies(t -> {
            assertThat(t.name()).isEqualTo("structured_output");
            assertThat(t.parameters().path("required").size()).isEqualTo(2);
        });
        assertThat(sent.options().toolChoice()).isEqualTo(ToolChoice.named("structured_output"));
        assertThat(sent.messages()).containsExactly(new ChatMessage.User("plan a trip"));
    }

    @Test
    void badInputAndAFailingModelAreRefusedAndNothingIsStored() {
        String path = "/v1/agents/" + agent + "/generate";
        assertThat(fx.post(fx.ana, path, obj()).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("prompt", "")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("prompt", 7)).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("prompt", "x", "response_schema", "a string")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj("prompt", "x", "response_schema", Map.of("type", "string"))).status())
                .isEqualTo(422);
        ServerFixture.Response unknown = fx.post(fx.ana, path, obj("prompt", "x", "override_model", "no-such-model"));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.detail()).contains("no-such-model");
        assertThat(fx.post(fx.ana, path, obj("prompt", "x", "override_model", "http://169.254.169.254/v1#x")).status())
                .isIn(404, 422);
        assertThat(model.requests).isEmpty();
        ServerFixture.Response failed = fx.post(fx.ana, path, obj("prompt", "fail"));
        assertThat(failed.status()).isEqualTo(502);
        assertThat(failed.detail()).contains("LLM provider error").doesNotContain("secret");
        assertThat(stored()).isZero();
    }

    @Test
    void anotherUsersKeyGetsNotFound() {
        ServerFixture.Response r = fx.post(fx.ben, "/v1/agents/" + agent + "/generate", obj("prompt", "hello"));
        assertThat(r.status()).isEqualTo(404);
        assertThat(model.requests).isEmpty();
    }
}

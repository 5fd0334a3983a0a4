package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A runtime keeps at most its bound of agents loaded; one let go is rebuilt from the store, and loses nothing. */
class LoadedAgentsTest {
    @TempDir
    Path dir;

    private AgentFixture fx;
    private final EchoModel model = new EchoModel();

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    /** Answers every message with its text, without tools; a message that starts with "block" waits for {@link #release}. */
    static final class EchoModel implements ChatModel {
        final List<ChatRequest> requests = java.util.Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch blocked = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String name() {
            return "echo";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            requests.add(request);
            String text = "";
            for (ChatMessage m : request.messages()) {
                if (m instanceof ChatMessage.User u) {
                    text = u.text();
                }
            }
            if (text.startsWith("block")) {
                blocked.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return new ChatResponse(new ChatMessage.Assistant("echo: " + text, List.of()), new ChatResponse.Usage(10, 2),
                    ChatResponse.StopReason.END_TURN);
        }
    }

    private AgentFixture open(int maxLoaded) {
        fx = new AgentFixture(dir).open(b -> b.model("test:echo", model).maxLoadedAgents(maxLoaded));
        return fx;
    }

    private Agent create(String id) {
        return fx.runtime.create(AgentDefinition.builder("ana").id(id).name(id).model("test:echo").tools(List.of()).build());
    }

    private List<String> userTexts(String id) {
        return fx.messages(Scope.of("ana", id)).stream().filter(m -> m.role() == MessageRole.USER).map(ConversationMessage::content)
                .toList();
    }

    @Test
    void theAgentPastTheBoundLetsTheLeastRecentlyUsedIdleOneGo() {
        open(10);
        LoadedAgents loaded = new LoadedAgents(3);
        Agent a = create("a");
        Agent b = create("b");
        Agent c = create("c");
        Agent d = create("d");
        loaded.put(a, "a");
        loaded.put(b, "b");
        loaded.put(c, "c");
        assertThat(loaded.get(a.scope())).containsSame(a); // a used after b
        loaded.put(d, "d");

        assertThat(loaded.size()).isEqualTo(3);
        assertThat(loaded.definition(b.scope())).isEmpty();
        assertThat(loaded.definition(a.scope())).contains("a");
        assertThat(loaded.definition(c.scope())).contains("c");
        assertThat(loaded.definition(d.scope())).contains("d");
    }

    @Test
    void anAgentWithATurnUnderWayIsNeverLetGo() throws Exception {
        open(10);
        LoadedAgents loaded = new LoadedAgents(1);
        Agent busy = create("busy");
        loaded.put(busy, "busy");
        Thread turn = Thread.ofVirtual().start(() -> busy.send("block until released"));
        try {
            assertThat(model.blocked.await(30, TimeUnit.SECONDS)).isTrue();
            Agent other = create("other");
            loaded.put(other, "other");
            Agent third = create("third");
            loaded.put(third, "third");

            assertThat(loaded.definition(busy.scope())).contains("busy");
            assertThat(loaded.definition(other.scope())).isEmpty();
            assertThat(loaded.definition(third.scope())).isEmpty();
            assertThat(loaded.size()).isEqualTo(1); // the bound of 1 is the busy agent's: the idle ones go
        } finally {
            model.release.countDown();
            turn.join();
        }
        assertThat(userTexts("busy")).containsExactly("block until released");
    }

    @Test
    void anAgentLetGoButStillHeldIsGivenBackNotLoadedTwice() {
        open(10);
        LoadedAgents loaded = new LoadedAgents(1);
        Agent a = create("a");
        loaded.put(a, "a");
        loaded.put(create("b"), "b");
        assertThat(loaded.definition(a.scope())).isEmpty();

        Agent again = loaded.computeIfAbsent(a.scope(), s -> {
            throw new AssertionError("an agent still held was loaded a second time");
        });

        assertThat(again).isSameAs(a);
        assertThat(loaded.definition(a.scope())).contains("a");
        assertThat(loaded.values()).contains(a);
    }

    @Test
    void theRuntimeKeepsAtMostItsBoundAndLosesNoAcknowledgedMessage() {
        open(2);
        List<String> ids = List.of("a1", "a2", "a3", "a4", "a5");
        ids.forEach(this::create);
        for (int round = 0; round < 3; round++) {
            for (String id : ids) {
                AgentResponse r = fx.runtime.agent("ana", id).send(id + " message " + round);
                assertThat(r.reply()).contains("echo: " + id + " message " + round);
            }
        }

        assertThat(fx.runtime.loadedAgents()).isLessThanOrEqualTo(2);
        for (String id : ids) {
            assertThat(userTexts(id)).containsExactly(id + " message 0", id + " message 1", id + " message 2");
        }
    }

    @Test
    void anAgentLetGoAndCollectedIsRebuiltFromTheStoreOnItsNextMessage() {
        open(1);
        WeakReference<Agent> first = new WeakReference<>(create("first"));
        fx.runtime.agent("ana", "first").send("the code word is walnut");
        fx.runtime.agent("ana", "first").compilePrompt(); // the context read once, as kept
        create("second"); // lets "first" go
        for (int i = 0; i < 50 && first.get() != null; i++) {
            System.gc();
        }
        assertThat(first.get()).as("the agent let go was collected").isNull();

        Agent rebuilt = fx.runtime.agent("ana", "first");
        model.requests.clear();
        AgentResponse r = rebuilt.send("what is the code word?");

        assertThat(r.reply()).contains("echo: what is the code word?");
        String prompt = model.requests.getFirst().messages().toString();
        assertThat(prompt).contains("the code word is walnut").contains("echo: the code word is walnut");
        assertThat(userTexts("first")).containsExactly("the code word is walnut", "what is the code word?");
        assertThat(fx.runtime.loadedAgents()).isEqualTo(1);
    }

    @Test
    void aBoundBelowOneIsRefused() {
        open(10);
        assertThatThrownBy(() -> AgentRuntime.builder(fx.store, fx.search).maxLoadedAgents(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the most agents kept loaded must be at least 1, got 0");
        assertThatThrownBy(() -> new LoadedAgents(0)).isInstanceOf(IllegalArgumentException.class);
    }
}

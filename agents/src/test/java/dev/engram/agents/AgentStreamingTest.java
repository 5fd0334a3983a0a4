package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ModelCancelledException;
import dev.engram.framework.model.StreamListener;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Agent#stream}: the events, the history it stores, and cancelling it anywhere. */
class AgentStreamingTest {
    /** Three messages: heartbeat chains, text beside calls, an escaped non-ASCII reply, a plain-text answer. */
    private static final String CONVERSATION = """
            {"turns": [
              {"reasoning": "The user gave a fact; store it first.", "text": "Let me note that.",
               "tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Likes green tea", "request_heartbeat": true}}]},
              {"tool_calls": [{"name": "send_message", "arguments": {"message": "Noted \\"green tea\\" \u2014 ol\u00e1 \ud83d\ude00!\\nAnything else?"}}]},
              {"tool_calls": [{"name": "block", "arguments": {"operation": "view", "label": "human", "request_heartbeat": true}},
                              {"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Asked what they like"}}]},
              {"tool_calls": [{"name": "send_message", "arguments": {"message": "You like green tea."}}]},
              {"text": "Plain text answers count too."}
            ]}""";
    private static final List<String> MESSAGES = List.of("I like green tea.", "What do I like?", "And now?");

    @TempDir
    Path dir;

    private final List<AgentFixture> fixtures = new ArrayList<>();

    @AfterEach
    void close() {
        fixtures.forEach(AgentFixture::close);
    }

    private AgentFixture fixture(String name, java.util.function.Function<String, ChatModel> models) {
        AgentFixture fx = new AgentFixture(dir.resolve(name)).open(b -> b.modelResolver(models));
        fixtures.add(fx);
        return fx;
    }

    private static Agent create(AgentFixture fx, String id, String spec) {
        return fx.runtime.create(AgentDefinition.builder("ana").id(id).model(spec)
                .block("human", "What I know about the user", "").build());
    }

    /** What a history means, without ids and times. */
    private static List<String> meaning(List<ConversationMessage> history) {
        return history.stream().map(m -> m.role() + "|" + m.sessionId() + "|" + m.content() + "|" + m.toolCallId().orElse("")
                + "|" + m.toolCalls().stream().map(c -> c.id() + " " + c.name() + " " + c.arguments()).toList()
                + "|" + m.inContext()).toList();
    }

    @Test
    void aStreamedConversationStoresExactlyWhatASentOneStores() {
        AgentFixture sent = fixture("sent", spec -> script(CONVERSATION));
        AgentFixture streamed = fixture("streamed", spec -> script(CONVERSATION));
        Agent a = create(sent, "helper", "script:a");
        Agent b = create(streamed, "helper", "script:b");
        List<AgentResponse> sentResponses = new ArrayList<>();
        List<AgentResponse> streamedResponses = new ArrayList<>();
        for (String m : MESSAGES) {
            sentResponses.add(a.send(m));
            streamedResponses.add(b.stream(m, e -> { }));
        }
        assertThat(meaning(streamed.messages(b.scope()))).isEqualTo(meaning(sent.messages(a.scope()))).hasSize(13);
        assertThat(streamedResponses).extracting(AgentResponse::reply, AgentResponse::stopReason, AgentResponse::steps)
                .isEqualTo(sentResponses.stream().map(r -> org.assertj.core.groups.Tuple.tuple(r.reply(), r.stopReason(), r.steps()))
                        .toList());
        assertThat(streamed.store.blocks().get(b.scope(), "human").orElseThrow().value())
                .isEqualTo(sent.store.blocks().get(a.scope(), "human").orElseThrow().value());
    }

    @Test
    void theEventsTellTheTurnAsItHappens() {
        AgentFixture fx = fixture("events", spec -> script(CONVERSATION));
        Agent agent = create(fx, "helper", "script:x");
        List<AgentStreamEvent> events = new ArrayList<>();

        AgentResponse r = agent.stream("I like green tea.", events::add);

        assertThat(events.getFirst()).isEqualTo(new AgentStreamEvent.StepStarted(1));
        assertThat(events.getLast()).isEqualTo(new AgentStreamEvent.Completed(r));
        assertThat(text(events, AgentStreamEvent.Reasoning.class, 1)).isEqualTo("The user gave a fact; store it first.");
        assertThat(text(events, AgentStreamEvent.Text.class, 1)).isEqualTo("Let me note that.");
        assertThat(events.stream().filter(e -> e instanceof AgentStreamEvent.Text).count()).isGreaterThan(1); // in pieces
        // The tool-call fragments add up to the stored call; the reply decodes from send_message's arguments as it streams.
        List<AgentStreamEvent.ToolCallDelta> first = events.stream().filter(e -> e instanceof AgentStreamEvent.ToolCallDelta d
                && d.step() == 1).map(AgentStreamEvent.ToolCallDelta.class::cast).toList();
        assertThat(first.getFirst().toolName()).isEqualTo("block");
        MessageToolCall stored = fx.messages(agent.scope()).get(1).toolCalls().getFirst();
        assertThat(first.getFirst().callId()).isEqualTo(stored.id());
        assertThat(first.stream().map(AgentStreamEvent.ToolCallDelta::argumentsDelta).collect(Collectors.joining()))
                .isEqualTo(stored.arguments());
        assertThat(text(events, AgentStreamEvent.ReplyDelta.class, 2)).isEqualTo("Noted \"green tea\" \u2014 ol\u00e1 \ud83d\ude00!\nAnything else?")
                .isEqualTo(r.reply().orElseThrow());
        assertThat(events.stream().filter(e -> e instanceof AgentStreamEvent.ReplyDelta).count()).isGreaterThan(1);
        // Per step: start, model output, usage, tool returns, finish.
        assertThat(kinds(events, 1)).startsWith("StepStarted", "Reasoning").endsWith("Usage", "ToolReturn", "StepFinished");
        assertThat(kinds(events, 2)).endsWith("Usage", "ToolReturn", "StepFinished");
        assertThat(events).contains(new AgentStreamEvent.StepFinished(2, java.util.Optional.of(AgentStopReason.YIELDED)));
        long usage = events.stream().filter(e -> e instanceof AgentStreamEvent.Usage).mapToLong(e ->
                ((AgentStreamEvent.Usage) e).outputTokens()).sum();
        assertThat(usage).isEqualTo(r.outputTokens());
    }

    @Test
    void aPlainTextAnswerStreamsAsTextAndIsTheReply() {
        AgentFixture fx = fixture("plain", spec -> script("{\"turns\": [{\"text\": \"Hello there, how can I help you today?\"}]}"));
        Agent agent = create(fx, "helper", "script:x");
        List<AgentStreamEvent> events = new ArrayList<>();
        AgentResponse r = agent.stream("hi", events::add);
        assertThat(r.reply()).contains("Hello there, how can I help you today?");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.END_TURN);
        assertThat(text(events, AgentStreamEvent.Text.class, 1)).isEqualTo(r.reply().orElseThrow());
    }

    @Test
    void cancellingAtEveryEventLeavesAConsistentLoadableAgent() {
        AgentFixture counting = fixture("count", spec -> script(CONVERSATION));
        List<AgentStreamEvent> all = new ArrayList<>();
        create(counting, "helper", "script:x").stream(MESSAGES.getFirst(), all::add);
        int n = all.size();
        assertThat(n).isGreaterThan(20);

        AgentFixture fx = fixture("cancel", spec -> script(CONVERSATION));
        Set<AgentStopReason> seen = new HashSet<>();
        for (int k = 1; k <= n; k++) {
            Agent agent = create(fx, "a" + k, "script:" + k);
            int cancelAt = k;
            int[] count = {0};
            List<AgentStreamEvent> after = new ArrayList<>();
            AgentResponse r = agent.stream(MESSAGES.getFirst(), e -> {
                if (++count[0] > cancelAt) {
                    after.add(e);
                }
                if (count[0] == cancelAt) {
                    agent.cancel();
                }
            });
            seen.add(r.stopReason());
            assertPaired(fx.messages(agent.scope()), "cancelled at event " + k + " of " + n);
            // After the cancel, only the ends of the step and the turn arrive, and no new step starts.
            assertThat(after).as("events after cancelling at %d", k).allMatch(e -> e instanceof AgentStreamEvent.StepFinished
                    || e instanceof AgentStreamEvent.Completed || e instanceof AgentStreamEvent.ToolReturn
                    || e instanceof AgentStreamEvent.Usage);
        }
        assertThat(seen).contains(AgentStopReason.CANCELLED);

        // Every agent loads in a new runtime and answers its next message.
        fx.close();
        fx.open(b -> b.modelResolver(spec -> script("""
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "still here"}}]}]}""")));
        for (int k = 1; k <= n; k++) {
            Agent agent = fx.runtime.agent("ana", "a" + k);
            assertThat(agent.compilePrompt().messages()).isNotEmpty();
            assertThat(agent.send("are you there?").reply()).as("agent a%d", k).contains("still here");
            assertPaired(fx.messages(agent.scope()), "agent a" + k + " after its next message");
        }
    }

    @Test
    void cancelFromAnotherThreadStopsTheModelMidStreamAndStoresNothingOfTheStep() throws Exception {
        CountDownLatch streaming = new CountDownLatch(1);
        ChatModel slow = new ChatModel() {
            @Override
            public String name() {
                return "slow";
            }

            @Override
            public ChatResponse chat(ChatRequest request) {
                throw new AssertionError("the agent must stream");
            }

            @Override
            public ChatResponse stream(ChatRequest request, StreamListener listener) {
                listener.onText("Hel");
                streaming.countDown();
                try {
                    Thread.sleep(30_000);
                } catch (InterruptedException e) {
                    throw new ModelCancelledException("interrupted");
                }
                throw new AssertionError("not cancelled");
            }
        };
        AgentFixture fx = fixture("thread", spec -> slow);
        Agent agent = create(fx, "helper", "slow");
        List<AgentStreamEvent> events = Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.CompletableFuture<AgentResponse> response = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> agent.stream("hello", events::add));
        assertThat(streaming.await(10, TimeUnit.SECONDS)).isTrue();
        agent.cancel();
        AgentResponse r = response.get(10, TimeUnit.SECONDS);
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.CANCELLED);
        assertThat(events).contains(new AgentStreamEvent.Text(1, "Hel"));
        assertThat(fx.messages(agent.scope())).extracting(ConversationMessage::content).containsExactly("hello");
    }

    @Test
    void aListenerThatThrowsCancelsTheTurnAndHearsNothingMore() {
        AgentFixture fx = fixture("throws", spec -> script(CONVERSATION));
        Agent agent = create(fx, "helper", "script:x");
        List<AgentStreamEvent> events = new ArrayList<>();
        AgentResponse r = agent.stream("I like green tea.", e -> {
            events.add(e);
            if (e instanceof AgentStreamEvent.ToolCallDelta) {
                throw new IllegalStateException("the client went away");
            }
        });
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.CANCELLED);
        assertThat(events.getLast()).isInstanceOf(AgentStreamEvent.ToolCallDelta.class);
        assertThat(fx.messages(agent.scope())).extracting(ConversationMessage::content).containsExactly("I like green tea.");
        // The agent takes the next message normally.
        assertThat(agent.send("again").stopReason()).isNotEqualTo(AgentStopReason.CANCELLED);
    }

    @Test
    void badInputIsRefusedBeforeAnythingIsStored() {
        AgentFixture fx = fixture("bad", spec -> script("{\"turns\": []}"));
        Agent agent = create(fx, "helper", "script:x");
        assertThatThrownBy(() -> agent.stream("hi", null)).isInstanceOf(NullPointerException.class).hasMessageContaining("listener");
        assertThatThrownBy(() -> agent.stream(" ", e -> { })).isInstanceOf(IllegalArgumentException.class);
        assertThat(fx.messages(agent.scope())).isEmpty();
    }

    private static void assertPaired(List<ConversationMessage> history, String when) {
        Set<String> calls = history.stream().flatMap(m -> m.toolCalls().stream()).map(MessageToolCall::id).collect(Collectors.toSet());
        Set<String> results = history.stream().flatMap(m -> m.toolCallId().stream()).collect(Collectors.toSet());
        assertThat(results).as("results, %s", when).isEqualTo(calls);
    }

    private static String text(List<AgentStreamEvent> events, Class<? extends AgentStreamEvent> kind, int step) {
        return events.stream().filter(e -> kind.isInstance(e) && e.step() == step).map(e -> switch (e) {
            case AgentStreamEvent.Text t -> t.delta();
            case AgentStreamEvent.Reasoning t -> t.delta();
            case AgentStreamEvent.ReplyDelta t -> t.delta();
            default -> "";
        }).collect(Collectors.joining());
    }

    private static List<String> kinds(List<AgentStreamEvent> events, int step) {
        List<String> kinds = new ArrayList<>();
        for (AgentStreamEvent e : events) {
            String kind = e.getClass().getSimpleName();
            if (e.step() == step && (kinds.isEmpty() || !kinds.getLast().equals(kind))) {
                kinds.add(kind);
            }
        }
        return kinds;
    }
}

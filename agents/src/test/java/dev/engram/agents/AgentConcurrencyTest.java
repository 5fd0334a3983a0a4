package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ModelCancelledException;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One step at a time per agent, many agents in parallel, cancellation. */
class AgentConcurrencyTest {
    private static final Pattern COUNT = Pattern.compile("count: (\\d+)");
    /**
     * How long the soak runs: a short version in the suite; the full minute (or longer) behind a flag,
     * {@code ./mvnw -pl agents test -Dtest=AgentConcurrencyTest -Dengram.soakSeconds=60} (bench/README.md).
     */
    private static final Duration SOAK = Duration.ofSeconds(Long.getLong("engram.soakSeconds", 8));

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    /**
     * A model that emits real tool calls from what it reads: for a new message it increments the
     * counter in its "tally" block (read from the prompt, written with block replace); after that
     * it answers with send_message; asked to summarise, it summarises.
     */
    static final class CountingModel implements ChatModel {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            int n = calls.incrementAndGet();
            if (request.tools().isEmpty()) {
                return reply(new ChatMessage.Assistant("Earlier messages were tallied.", List.of()));
            }
            ChatMessage last = request.messages().getLast();
            String lastUser = "";
            for (ChatMessage m : request.messages()) {
                if (m instanceof ChatMessage.User u) {
                    lastUser = u.text();
                }
            }
            if (last instanceof ChatMessage.User) {
                Matcher matcher = COUNT.matcher(((ChatMessage.System) request.messages().getFirst()).text());
                if (!matcher.find()) {
                    throw new AssertionError("the tally block is missing from the prompt");
                }
                int count = Integer.parseInt(matcher.group(1));
                return reply(new ChatMessage.Assistant("", List.of(new ToolCall("t" + n, "block",
                        "{\"operation\":\"replace\",\"label\":\"tally\",\"old_text\":\"count: " + count
                                + "\",\"new_text\":\"count: " + (count + 1) + "\"}"))));
            }
            return reply(new ChatMessage.Assistant("", List.of(new ToolCall("r" + n, "send_message",
                    "{\"message\":\"ack " + lastUser.replace("\"", "") + "\"}"))));
        }

        private static ChatResponse reply(ChatMessage.Assistant message) {
            return new ChatResponse(message, ChatResponse.Usage.NONE, message.toolCalls().isEmpty()
                    ? ChatResponse.StopReason.END_TURN : ChatResponse.StopReason.TOOL_CALLS);
        }
    }

    @Test
    void tenThreadsTalkToTenAgentsAndNothingIsLostOrCorrupted() throws Exception {
        fx = new AgentFixture(dir).open(b -> b.model("script:counting", new CountingModel()));
        List<Agent> agents = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            agents.add(fx.runtime.create(AgentDefinition.builder(i % 2 == 0 ? "ana" : "ben").id("agent-" + i)
                    .model("script:counting").tools("send_message", "block").contextWindowTokens(4_096)
                    .block(NewBlock.builder("tally").description("How many messages I received").value("count: 0").build())
                    .build()));
        }
        Map<Scope, AtomicInteger> sent = new ConcurrentHashMap<>();
        agents.forEach(a -> sent.put(a.scope(), new AtomicInteger()));
        long deadline = System.nanoTime() + SOAK.toNanos();
        List<String> wrongReplies = java.util.Collections.synchronizedList(new ArrayList<>());
        try (ExecutorService threads = Executors.newFixedThreadPool(10)) {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 10; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    int k = 0;
                    while (System.nanoTime() < deadline) {
                        Agent agent = agents.get(ThreadLocalRandom.current().nextInt(agents.size()));
                        String text = "message " + thread + "-" + k++;
                        AgentResponse r = agent.send(text);
                        sent.get(agent.scope()).incrementAndGet();
                        if (r.stopReason() != AgentStopReason.YIELDED || !r.reply().orElse("").equals("ack " + text)) {
                            wrongReplies.add(text + " -> " + r);
                        }
                    }
                    return k;
                }));
            }
            int total = 0;
            for (Future<Integer> f : done) {
                total += f.get(SOAK.toSeconds() + 120, TimeUnit.SECONDS);
            }
            assertThat(total).isGreaterThan(10);
            System.out.printf("soak: %d messages to 10 agents in %d s, %d compactions%n", total, SOAK.toSeconds(),
                    fx.events(AgentEvent.ContextCompacted.class).size());
        }

        assertThat(wrongReplies).isEmpty();
        assertThat(fx.events(AgentEvent.ContextCompacted.class)).as("compactions during the soak").isNotEmpty();
        for (Agent agent : agents) {
            int n = sent.get(agent.scope()).get();
            Scope scope = agent.scope();
            // The block counted every message exactly once: no lost update, no torn write.
            assertThat(fx.store.blocks().get(scope, "tally").orElseThrow().value()).isEqualTo("count: " + n);
            assertThat(fx.store.blocks().history(scope, "tally")).hasSize(n + 1);
            // Every message is in recall memory, with every call answered.
            List<ConversationMessage> all = new ArrayList<>();
            long after = 0;
            for (List<ConversationMessage> page; !(page = fx.store.messages().list(scope,
                    MessageQuery.all().withIdRange(after, Long.MAX_VALUE))).isEmpty(); after = page.getLast().id()) {
                all.addAll(page);
            }
            assertThat(all).filteredOn(m -> m.role() == MessageRole.USER).hasSize(n);
            assertThat(all).filteredOn(m -> m.role() == MessageRole.TOOL).hasSize(2 * n);
            assertThat(all.stream().mapToLong(m -> m.toolCalls().size()).sum()).isEqualTo(2L * n);
        }
    }

    /** A model that blocks until released, and honours interruption like the HTTP adapters. */
    static final class GateModel implements ChatModel {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public String name() {
            return "gate";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            int n = calls.incrementAndGet();
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new ModelCancelledException("the call was cancelled");
            }
            String lastUser = request.messages().stream().filter(m -> m instanceof ChatMessage.User)
                    .map(m -> ((ChatMessage.User) m).text()).reduce((a, b) -> b).orElse("");
            return new ChatResponse(ChatMessage.Assistant.text("re: " + lastUser + " #" + n), ChatResponse.Usage.NONE,
                    ChatResponse.StopReason.END_TURN);
        }
    }

    @Test
    void aSecondSendWaitsForTheFirstAndBothComplete() throws Exception {
        GateModel model = new GateModel();
        fx = new AgentFixture(dir).open(b -> b.model("script:gate", model));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:gate").build());
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<AgentResponse> first = pool.submit(() -> agent.send("first"));
            assertThat(model.entered.await(10, TimeUnit.SECONDS)).isTrue();
            Future<AgentResponse> second = pool.submit(() -> agent.send("second"));
            Thread.sleep(200);
            assertThat(second).isNotDone();
            assertThat(fx.messages(agent.scope())).extracting(ConversationMessage::content).containsExactly("first");
            model.release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).reply()).contains("re: first #1");
            assertThat(second.get(10, TimeUnit.SECONDS).reply()).contains("re: second #2");
        }
        assertThat(fx.messages(agent.scope())).extracting(ConversationMessage::content)
                .containsExactly("first", "re: first #1", "second", "re: second #2");
    }

    @Test
    void aBusyAgentIsNotDeletedAndAnIdleOneIs() throws Exception {
        GateModel model = new GateModel();
        fx = new AgentFixture(dir).open(b -> b.model("script:gate", model));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:gate").build());
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<AgentResponse> running = pool.submit(() -> agent.send("long task"));
            assertThat(model.entered.await(10, TimeUnit.SECONDS)).isTrue();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> fx.runtime.delete("ana", "helper"))
                    .isInstanceOf(AgentException.class)
                    .hasMessage("Agent 'helper' is working on a message; delete it when it is idle.");
            assertThat(fx.store.agents().get(agent.scope())).as("the definition is still stored").isPresent();
            model.release.countDown();
            assertThat(running.get(10, TimeUnit.SECONDS).reply()).contains("re: long task #1");
        }
        assertThat(fx.runtime.delete("ana", "helper")).isTrue();
        assertThat(fx.store.agents().get(agent.scope())).isEmpty();
    }

    @Test
    void cancelStopsTheStepInProgressAndTheAgentStaysUsable() throws Exception {
        GateModel model = new GateModel();
        fx = new AgentFixture(dir).open(b -> b.model("script:gate", model));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:gate").build());
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<AgentResponse> running = pool.submit(() -> agent.send("long task"));
            assertThat(model.entered.await(10, TimeUnit.SECONDS)).isTrue();
            agent.cancel();
            AgentResponse r = running.get(10, TimeUnit.SECONDS);
            assertThat(r.stopReason()).isEqualTo(AgentStopReason.CANCELLED);
            assertThat(r.reply()).isEmpty();
        }
        assertThat(agent.isBusy()).isFalse();
        assertThat(fx.messages(agent.scope())).extracting(ConversationMessage::content).containsExactly("long task");
        model.release.countDown();
        assertThat(agent.send("again").reply()).contains("re: again #2");
    }
}

package dev.engram.bench;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentRuntime;
import dev.engram.agents.AgentStopReason;
import dev.engram.agents.AgentStreamEvent;
import dev.engram.agents.AgentStreamListener;
import dev.engram.agents.CompiledPrompt;
import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatOptions;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.StreamListener;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Embedder;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.ToolOutcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The agent runtime's own cost per step, with the model excluded: an instant model answers every
 * message with one {@code block view} call and no heartbeat, so one {@code send} is: store the user
 * message, compile the prompt (system prompt, 5 blocks, statistics, 100 in-context messages, token
 * counts), call the model, run the call through the tool pipeline, and store the assistant message
 * with its result in one transaction. The context is trimmed back to 100 messages between
 * invocations (outside the measurement). Real SQLite file, real Lucene index (background indexing off).
 *
 * <p>{@link #streamedStep} is the same message through {@link Agent#stream}: the instant model streams
 * the same answer in provider-sized fragments (its text in 6 pieces, the call's id and name, then its
 * arguments in 8-character pieces) and a listener counts the events, so the difference between the two
 * is what streaming adds to a step.
 *
 * <p>Beside them, the limits of a step in the same run (issue 34, item 7): {@link #modelCall} is the raw call of the
 * instant model on the step's compiled prompt (what "the model excluded" leaves out), and {@link #stepWrites} the
 * store's part that no step can skip: the step's three writes (the user message; the assistant's call, recorded before
 * the tool runs; the call's result), each its own transaction as the loop makes them, through the same store.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
        "-Dai.djl.offline=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
@State(Scope.Benchmark)
public class AgentStepBenchmark {
    private static final int IN_CONTEXT = 100;

    private Path dir;
    private MemoryStore store;
    private Embedder embedder;
    private MemorySearch search;
    private AgentRuntime runtime;
    private Agent agent;
    private int n;
    private InstantModel model;
    private ChatRequest request;

    /** Answers at once with one read-only tool call and no heartbeat. */
    static final class InstantModel implements ChatModel {
        private int calls;

        @Override
        public String name() {
            return "instant";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            ToolCall call = new ToolCall("c" + (++calls), "block", "{\"operation\":\"view\",\"label\":\"human\"}");
            return new ChatResponse(new ChatMessage.Assistant("Let me check what I know.", List.of(call)),
                    ChatResponse.Usage.NONE, ChatResponse.StopReason.TOOL_CALLS);
        }

        /** The same answer as {@link #chat}, in the fragments a provider would stream it in. */
        @Override
        public ChatResponse stream(ChatRequest request, StreamListener listener) {
            ChatResponse response = chat(request);
            for (String piece : new String[] {"Let ", "me ", "check ", "what ", "I ", "know."}) {
                listener.onText(piece);
            }
            ToolCall call = response.message().toolCalls().getFirst();
            listener.onToolCallDelta(0, call.id(), call.name(), "");
            String args = call.arguments();
            for (int i = 0; i < args.length(); i += 8) {
                listener.onToolCallDelta(0, "", "", args.substring(i, Math.min(args.length(), i + 8)));
            }
            listener.onToolCall(call);
            return response;
        }
    }

    /** Counts what it hears, as a UI would handle each event. */
    static final class CountingListener implements AgentStreamListener {
        long events;

        @Override
        public void onEvent(AgentStreamEvent event) {
            events++;
        }
    }

    private final CountingListener listener = new CountingListener();

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("engram-agent-bench");
        store = MemoryStore.sqlite(dir.resolve("memory.db"));
        embedder = Embedder.onnxDefault();
        search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                .backgroundInterval(Duration.ZERO).build();
        model = new InstantModel();
        runtime = AgentRuntime.builder(store, search).model("bench:instant", model).build();
        AgentDefinition.Builder b = AgentDefinition.builder("bench-user").id("bench-agent").model("bench:instant")
                .contextWindowTokens(128_000);
        String[] labels = {"human", "persona", "project", "preferences", "scratchpad"};
        for (String label : labels) {
            b.block(NewBlock.builder(label).description("The " + label + " block")
                    .value(("Some facts about " + label + ". ").repeat(20)).build());
        }
        agent = runtime.create(b.build());
        List<NewMessage> history = new ArrayList<>();
        for (int i = 0; i < IN_CONTEXT / 4; i++) {
            history.add(NewMessage.user("s", "Question " + i + ": what about the trip to Lisbon in May, and the budget?"));
            history.add(NewMessage.assistant("s", "Looking it up.", List.of(
                    new MessageToolCall("h" + i, "search", "{\"query\":\"Lisbon trip budget " + i + "\"}"))));
            history.add(NewMessage.tool("s", "h" + i, "[{\"text\":\"Budget for Lisbon: 1200 EUR, flights booked\"}]"));
            history.add(NewMessage.assistant("s", "Your Lisbon budget is 1200 EUR and the flights are booked.", List.of()));
        }
        store.messages().appendAll(agent.scope(), history);
        AgentResponse warm = agent.send("warm up");
        if (warm.stopReason() != AgentStopReason.NO_HEARTBEAT) {
            throw new IllegalStateException("unexpected stop: " + warm);
        }
        trim();
        CompiledPrompt prompt = agent.compilePrompt("s");
        request = new ChatRequest(prompt.messages(), prompt.tools(), ChatOptions.defaults());
    }

    /** Back to exactly 100 in-context messages, oldest evicted first (a user message first, never a lone result). */
    @Setup(Level.Invocation)
    public void trim() {
        List<ConversationMessage> in = store.messages().list(agent.scope(), MessageQuery.inContext().newest(1_000));
        int extra = in.size() - IN_CONTEXT;
        if (extra > 0) {
            store.messages().markOutOfContext(agent.scope(), in.subList(0, extra).stream().map(ConversationMessage::id).toList());
        }
    }

    @Benchmark
    public AgentResponse step() {
        return agent.send("s", "What do you remember about me? (" + (n++) + ")");
    }

    @Benchmark
    public AgentResponse streamedStep() {
        return agent.stream("s", "What do you remember about me? (" + (n++) + ")", listener);
    }

    /** The limit beside {@link #step}: the instant model's own call on the step's prompt. */
    @Benchmark
    public ChatResponse modelCall() {
        return model.chat(request);
    }

    /** The store's part of a step: its three writes, each a transaction, as the loop makes them. */
    @Benchmark
    public List<ConversationMessage> stepWrites() {
        int i = n++;
        store.messages().append(agent.scope(), NewMessage.user("s", "What do you remember about me? (" + i + ")"));
        store.messages().append(agent.scope(), NewMessage.assistant("s", "Let me check what I know.", List.of(
                new MessageToolCall("w" + i, "block", "{\"operation\":\"view\",\"label\":\"human\"}"))));
        return store.messages().appendAll(agent.scope(), List.of(NewMessage.tool("s", "w" + i,
                "Some facts about human.", ToolOutcome.of(ToolOutcome.Status.OK))));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        runtime.close();
        search.close();
        embedder.close();
        store.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}

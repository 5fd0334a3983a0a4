package dev.engram.samples;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentType;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentRuntime;
import dev.engram.framework.model.ChatModel;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * An assistant that remembers its user across restarts. Everything lives in one directory: stop the
 * program, start it tomorrow, and the same agent carries on with the same blocks and conversation.
 *
 * <pre>
 * java ... dev.engram.samples.PersistentAssistant openai:gpt-4o-mini ./assistant-data
 * </pre>
 */
public final class PersistentAssistant implements AutoCloseable {
    private final MemoryStore store;
    private final Embedder embedder;
    private final MemorySearch search;
    private final AgentRuntime runtime;
    private final Agent agent;

    private PersistentAssistant(Path dir, String modelSpec, Function<String, ChatModel> models, String userId) {
        store = MemoryStore.sqlite(dir.resolve("memory.db"));
        embedder = Embedder.onnxDefault();
        search = MemorySearch.lucene(store, embedder, dir.resolve("index"));
        runtime = AgentRuntime.builder(store, search).modelResolver(models).build();
        // The first run creates the agent; every later run finds it by name.
        agent = runtime.findByName(userId, "assistant").orElseGet(() -> runtime.create(
                AgentDefinition.builder(userId).name("assistant").model(modelSpec).agentType(AgentType.MEMGPT_V2_AGENT)
                        .block("human", "What I know about the user", "")
                        .block("persona", "Who I am", "I am a patient assistant with a long memory.")
                        .build()));
    }

    /** Opens (or creates) the assistant of {@code userId} in {@code dir}. */
    public static PersistentAssistant open(Path dir, String modelSpec, Function<String, ChatModel> models, String userId) {
        return new PersistentAssistant(dir, modelSpec, models, userId);
    }

    /** Sends a message; returns what the assistant said. */
    public String ask(String message) {
        AgentResponse r = agent.send(message);
        return r.reply().orElse("(no reply: " + r.stopReason() + ")");
    }

    public Agent agent() {
        return agent;
    }

    @Override
    public void close() {
        runtime.close();
        search.close();
        embedder.close();
        store.close();
    }

    public static void main(String[] args) throws Exception {
        String spec = args.length > 0 ? args[0] : System.getenv("ENGRAM_MODEL");
        if (spec == null || spec.isBlank()) {
            System.err.println("usage: PersistentAssistant MODEL_SPEC [DATA_DIR]   (e.g. openai:gpt-4o-mini with OPENAI_API_KEY set)");
            System.exit(2);
        }
        Path dir = Path.of(args.length > 1 ? args[1] : "assistant-data");
        try (PersistentAssistant assistant = open(dir, spec, ChatModel::of, System.getProperty("user.name", "me"));
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            System.out.print("you > ");
            System.out.flush();
            for (String line; (line = in.readLine()) != null; ) {
                if (!line.isBlank()) {
                    System.out.println("assistant > " + assistant.ask(line));
                }
                System.out.print("you > ");
                System.out.flush();
            }
        }
    }
}

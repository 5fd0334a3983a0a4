package dev.engram.samples;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentType;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentRuntime;
import dev.engram.agents.AgentStopReason;
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
 * A chat bot serving many users: each user gets their own agent (their memory is theirs alone), and
 * the bot answers with whatever the agent sends through {@code send_message}, the tool that yields
 * control back to the user. An agent that stops without sending anything gets a polite fallback.
 *
 * <pre>
 * java ... dev.engram.samples.ChatBot openai:gpt-4o-mini ./bot-data     # then type "alice: hello"
 * </pre>
 */
public final class ChatBot implements AutoCloseable {
    static final String SYSTEM_PROMPT = """
            You are a friendly support bot. Answer every message with send_message, in one or two sentences. \
            Remember what users tell you about themselves in your "human" block.""";

    private final MemoryStore store;
    private final Embedder embedder;
    private final MemorySearch search;
    private final AgentRuntime runtime;
    private final String modelSpec;

    public ChatBot(Path dir, String modelSpec, Function<String, ChatModel> models) {
        this.modelSpec = modelSpec;
        store = MemoryStore.sqlite(dir.resolve("bot.db"));
        embedder = Embedder.onnxDefault();
        search = MemorySearch.lucene(store, embedder, dir.resolve("index"));
        runtime = AgentRuntime.builder(store, search).modelResolver(models).build();
    }

    /** The bot's answer to {@code userId}. */
    public String handle(String userId, String text) {
        Agent agent = runtime.findByName(userId, "chatbot").orElseGet(() -> runtime.create(
                AgentDefinition.builder(userId).name("chatbot").model(modelSpec).agentType(AgentType.MEMGPT_V2_AGENT).systemPrompt(SYSTEM_PROMPT)
                        .block("human", "What I know about this user", "").maxSteps(5).build()));
        AgentResponse r = agent.send(text);
        if (r.stopReason() == AgentStopReason.YIELDED && r.reply().isPresent()) {
            return r.reply().get();
        }
        return r.reply().orElse("Sorry, I could not come up with an answer; please try again.");
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
            System.err.println("usage: ChatBot MODEL_SPEC [DATA_DIR], then type lines like 'alice: hello'");
            System.exit(2);
        }
        try (ChatBot bot = new ChatBot(Path.of(args.length > 1 ? args[1] : "bot-data"), spec, ChatModel::of);
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                int colon = line.indexOf(':');
                if (colon <= 0) {
                    System.out.println("(type 'user: message')");
                    continue;
                }
                String user = line.substring(0, colon).strip();
                System.out.println("bot > " + user + ": " + bot.handle(user, line.substring(colon + 1).strip()));
            }
        }
    }
}

package dev.engram.server;

import static io.helidon.http.Method.GET;

import dev.engram.agents.Agent;
import dev.engram.agents.CompiledPrompt;
import dev.engram.agents.TokenCounter;
import dev.engram.framework.ToolDefinition;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.MessageToolCall;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An agent's context window ({@code GET /v1/agents/{agent_id}/context}, Letta's {@code ContextWindowOverview}): the
 * prompt its next step would send, broken into its parts with the tokens of each by the agent's own token counter (the
 * system instructions and tool rules, the core memory blocks, the memory statistics, the summary of evicted messages,
 * the tool definitions and the messages in context) against the window's size. {@code context_window_size_current} is
 * the agent's own count of the whole prompt, the figure its compaction acts on. {@code system_prompt} is the agent's own
 * instructions, {@code tool_usage_rules} what its tool rules add to them. With {@code conversation_id}, the prompt of
 * that conversation of the agent's (its messages; a 404 for any other).
 */
final class ContextRoutes {
    private static final String BLOCKS = "<memory_blocks>";
    private static final String STATS = "<memory_statistics>";
    private static final String SUMMARY = "<conversation_summary>";
    private static final String PRESSURE = "<memory_pressure>";

    private final Api api;

    ContextRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table().twin(Route.agent(api, GET, "/v1/agents/{agent_id}/context", this::context)).list();
    }

    private void context(Agent agent, ServerRequest req, ServerResponse res) {
        Optional<String> conversation = Query.string(req, "conversation_id").filter(c -> !c.equals(ConversationRoutes.DEFAULT));
        conversation.ifPresent(c -> api.store.conversations().get(agent.userId(), c).filter(x -> x.agentId().equals(agent.id()))
                .orElseThrow(() -> ApiException.notFound("Conversation '" + c + "' not found for agent '" + agent.id() + "'.")));
        String session = conversation.orElse(ConversationRoutes.DEFAULT);
        CompiledPrompt prompt = agent.compilePrompt(session);
        TokenCounter counter = TokenCounter.forModel(TokenCounter.modelName(agent.definition().model()));
        String system = prompt.systemText();
        String head = section(system, "", BLOCKS, STATS, SUMMARY, PRESSURE);
        // The instructions are the agent's system prompt, then what its tool rules say (Letta's tool usage rules).
        String own = agent.definition().systemPrompt().strip();
        String instructions = head.startsWith(own) ? own : head;
        String rules = head.startsWith(own) ? head.substring(own.length()).strip() : "";
        String blocks = section(system, BLOCKS, STATS, SUMMARY, PRESSURE);
        String stats = section(system, STATS, SUMMARY, PRESSURE);
        String summary = section(system, SUMMARY, PRESSURE);
        List<ConversationMessage> messages = (conversation.isPresent() ? api.store.messages().list(agent.scope(),
                MessageQuery.inContext().withSession(session).withLimit(100_000)) : agent.inContextMessages()).stream()
                .filter(m -> m.role() != MessageRole.SYSTEM).toList();

        ObjectNode out = Body.JSON.createObjectNode();
        out.put("context_window_size_max", prompt.contextWindowTokens());
        out.put("context_window_size_current", prompt.tokens());
        out.put("num_messages", messages.size());
        out.put("num_archival_memory", api.store.archival().count(agent.scope()));
        out.put("num_recall_memory", api.store.messages().count(agent.scope()));
        out.put("num_tokens_external_memory_summary", counter.count(stats));
        out.put("external_memory_summary", stats);
        out.put("num_tokens_system", counter.count(instructions));
        out.put("system_prompt", instructions);
        out.put("num_tokens_core_memory", counter.count(blocks));
        out.put("core_memory", blocks);
        out.put("num_tokens_memory_filesystem", 0);
        out.putNull("memory_filesystem");
        out.put("num_tokens_tool_usage_rules", rules.isEmpty() ? 0 : counter.count(rules));
        if (rules.isEmpty()) {
            out.putNull("tool_usage_rules");
        } else {
            out.put("tool_usage_rules", rules);
        }
        out.put("num_tokens_directories", 0);
        out.putNull("directories");
        out.put("num_tokens_summary_memory", summary.isEmpty() ? 0 : counter.count(summary));
        if (summary.isEmpty()) {
            out.putNull("summary_memory");
        } else {
            out.put("summary_memory", summary);
        }
        ArrayNode functions = out.putArray("functions_definitions");
        int toolTokens = 0;
        for (ToolDefinition d : prompt.tools()) {
            ObjectNode f = functions.addObject().put("type", "function").putObject("function");
            f.put("name", d.name()).put("description", d.description()).set("parameters", d.parameters());
            toolTokens += counter.count(d.name()) + counter.count(d.description()) + counter.count(d.parameters().toString()) + 8;
        }
        out.put("num_tokens_functions_definitions", toolTokens);
        int messageTokens = 0;
        for (ConversationMessage m : messages) {
            messageTokens += counter.count(m.content()) + 4;
            for (MessageToolCall c : m.toolCalls()) {
                messageTokens += counter.count(c.name()) + counter.count(c.arguments()) + 4;
            }
        }
        out.put("num_tokens_messages", messageTokens);
        out.set("messages", Body.JSON.createArrayNode().addAll(LettaViews.messages(messages, true)));
        Api.json(res, out);
    }

    /** The part of {@code text} from {@code start} ("" for its beginning) to the first of {@code ends} after it. */
    private static String section(String text, String start, String... ends) {
        int from = start.isEmpty() ? 0 : text.indexOf(start);
        if (from < 0) {
            return "";
        }
        int to = text.length();
        for (String end : ends) {
            int at = text.indexOf(end, from + start.length());
            if (at >= 0 && at < to) {
                to = at;
            }
        }
        return text.substring(from, to).strip();
    }
}

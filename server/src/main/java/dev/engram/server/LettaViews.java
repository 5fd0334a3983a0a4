package dev.engram.server;

import dev.engram.agents.AgentDefinition;
import dev.engram.agents.DeclaredTool;
import dev.engram.agents.LettaModels;
import dev.engram.agents.LettaTools;
import dev.engram.agents.ToolRules;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MessageImage;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageRole;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.ToolOutcome;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Engram's values as Letta's API shows them ({@code AgentState}, {@code Block}, {@code Passage}, {@code Tool}, messages). */
final class LettaViews {
    /**
     * The argument of a call that delivered a message to the user whose text an {@code assistant_message} shows:
     * Letta's {@code assistant_message_tool_kwarg}, whose default this is (Engram's {@code send_message} writes there).
     */
    static final String MESSAGE_ARGUMENT = "message";

    private LettaViews() {
    }

    static String date(Instant t) {
        return t.toString();
    }

    /** Letta's {@code AgentState}. */
    static ObjectNode agent(AgentDefinition d, List<Block> blocks, List<ObjectNode> tools, List<String> messageIds,
            Instant createdAt, Instant updatedAt) {
        ObjectNode a = Body.JSON.createObjectNode();
        a.put("id", d.id());
        a.put("name", d.name());
        a.put("system", d.systemPrompt());
        a.put("agent_type", d.agentType().lettaName());
        a.set("llm_config", LettaModels.llmConfig(d));
        a.put("model", LettaModels.handle(d.model()));
        String handle = LettaModels.handle(d.model());
        a.set("model_settings", AgentFields.view(d.modelSettings(), handle.contains("/") ? handle.substring(0, handle.indexOf('/')) : "openai"));
        a.putNull("embedding_config");
        a.putNull("embedding");
        a.put("description", d.description().orElse(null));
        a.set("metadata", Body.JSON.readTree(d.metadata()));
        a.put("timezone", d.timezone().map(ZoneId::getId).orElse(null));
        ArrayNode blockList = Body.JSON.createArrayNode();
        blocks.forEach(b -> blockList.add(block(b)));
        ObjectNode memory = a.putObject("memory");
        memory.put("agent_type", d.agentType().lettaName());
        memory.set("blocks", blockList.deepCopy());
        memory.putArray("file_blocks");
        memory.put("prompt_template", "");
        a.set("blocks", blockList);
        ArrayNode toolList = a.putArray("tools");
        tools.forEach(toolList::add);
        a.putArray("sources");
        ArrayNode tags = a.putArray("tags");
        d.tags().forEach(tags::add);
        a.set("tool_rules", ToolRules.toJson(d.toolRules()));
        ArrayNode ids = a.putArray("message_ids");
        messageIds.forEach(ids::add);
        a.putArray("tool_exec_environment_variables");
        a.putArray("secrets");
        a.putArray("identity_ids").add(Identities.id(d.userId()));
        a.putArray("identities");
        a.put("message_buffer_autoclear", false);
        a.put("enable_sleeptime", d.sleeptime().isPresent());
        a.putNull("project_id");
        a.putNull("template_id");
        a.putNull("base_template_id");
        a.putNull("created_by_id");
        a.putNull("last_updated_by_id");
        a.put("created_at", date(createdAt));
        a.put("updated_at", date(updatedAt));
        return a;
    }

    /** Letta's {@code Block} (as {@code BlockResponse}). */
    static ObjectNode block(Block b) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", Ids.block(b.ownerAgentId(), b.label()));
        o.put("label", b.label());
        o.put("value", b.value());
        o.put("limit", b.limit());
        o.put("description", b.description());
        o.put("read_only", b.permission() == MemoryPermission.READ_ONLY);
        // Engram's own: the agent's permission on the block (read_only, partner, human, append, read_write)
        o.put("permission", b.permission().name().toLowerCase(Locale.ROOT));
        o.putObject("metadata");
        o.put("is_template", false);
        o.putNull("template_name");
        o.putNull("project_id");
        o.put("preserve_on_migration", false);
        o.put("hidden", false);
        o.putArray("tags");
        o.putNull("created_by_id");
        o.putNull("last_updated_by_id");
        o.put("created_at", date(b.createdAt()));
        o.put("updated_at", date(b.updatedAt()));
        return o;
    }

    /** Letta's {@code Passage}: an archival entry of an agent. */
    static ObjectNode passage(ArchivalEntry e, String agentId) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", e.id());
        o.put("text", e.content());
        o.putNull("embedding");
        o.putNull("embedding_config");
        ArrayNode tags = o.putArray("tags");
        e.tags().forEach(tags::add);
        o.put("archive_id", agentId);
        o.putNull("source_id");
        o.putNull("file_id");
        o.putNull("file_name");
        o.set("metadata", SearchParams.json(e.metadata()));
        o.put("is_deleted", false);
        o.putNull("created_by_id");
        o.putNull("last_updated_by_id");
        o.put("created_at", date(e.createdAt()));
        o.put("updated_at", date(e.updatedAt()));
        return o;
    }

    /** Letta's {@code Tool} for one of the runtime's tools. */
    static ObjectNode tool(ToolDefinition t) {
        return tool(t.name(), t.description(), t.parameters(), LettaTools.toolType(t.name()), t.tier() == SafetyTier.PRIVILEGED);
    }

    /** Letta's {@code Tool} for a tool an agent file declared (custom or MCP). */
    static ObjectNode tool(DeclaredTool t) {
        JsonNode parameters = Body.JSON.readTree(t.parameters());
        ObjectNode o = tool(t.name(), t.description(), parameters, t.kind(), true);
        if (!t.sourceCode().isEmpty()) {
            o.put("source_type", t.sourceType());
            o.put("source_code", t.sourceCode());
        }
        return o;
    }

    private static ObjectNode tool(String name, String description, JsonNode parameters, String type, boolean approval) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", Ids.tool(name));
        o.put("name", name);
        o.put("description", description);
        o.put("tool_type", type);
        o.put("source_type", "json");
        o.putNull("source_code");
        ObjectNode schema = o.putObject("json_schema");
        schema.put("name", name);
        schema.put("description", description);
        schema.set("parameters", parameters.deepCopy());
        o.putNull("args_json_schema");
        o.putArray("tags");
        o.put("return_char_limit", 50_000);
        o.put("default_requires_approval", approval);
        o.put("enable_parallel_execution", false);
        o.putObject("metadata_");
        return o;
    }

    /**
         * Stored messages as Letta's message union: a user message; a system message; an assistant message
     * whose model's own reasoning comes first ({@code reasoning_message} from a {@code reasoner_model}, and a
     * {@code hidden_reasoning_message} for what its provider gave only encrypted), whose text, beside tool calls, is
     * reasoning too ({@code reasoning_message} from a {@code non_reasoner_model}), whose calls that
     * delivered a message to the user (their stored {@link ToolOutcome.Effect#MESSAGE_TO_USER}) are what it said
     * ({@code assistant_message}, the text of their {@value #MESSAGE_ARGUMENT} argument) and whose other calls are
     * {@code tool_call_message}s, including a {@code send_message} that was refused, denied or sent to another agent;
     * a tool's result ({@code tool_return_message}, its status from the stored outcome, without those of calls shown
     * as an {@code assistant_message}). The Letta messages of one stored message share its id, as in Letta. With
     * {@code assistantMessages} false, every call shows as the tool call it is, with its return.
     */
    static List<ObjectNode> messages(List<ConversationMessage> stored, boolean assistantMessages) {
        return messages(stored, assistantMessages, callId -> Optional.empty(), callId -> Optional.empty());
    }

    /**
     * As {@link #messages(List, boolean)}, for a page of a longer history: {@code earlierCall} names the tool of a call
     * made before the first of {@code stored} (a page may begin with a tool's result), {@code laterOutcome} gives the
     * outcome of a call whose result is stored after the last (a page may end with the call). A result whose call is
     * neither in {@code stored} nor before it (a stream that showed the call before it ran) shows as a return.
     */
    /**
     * A user message that shows images, in Letta's shape: {@code content} is a list of parts, its text (when it has
     * one), then each image as {@code {"type": "image", "source": {"type": "base64", "media_type", "data"}}} or
     * {@code {"source": {"type": "url", "url"}}}.
     */
    private static ObjectNode userWithImages(ObjectNode view, ConversationMessage m) {
        ArrayNode parts = view.putArray("content");
        if (!m.content().isEmpty()) {
            parts.addObject().put("type", "text").put("text", m.content());
        }
        for (MessageImage image : m.images()) {
            ObjectNode source = parts.addObject().put("type", "image").putObject("source");
            switch (image) {
                case MessageImage.Inline in -> source.put("type", "base64").put("media_type", in.mediaType())
                        .put("data", Base64.getEncoder().encodeToString(in.data())).putNull("detail");
                case MessageImage.Url url -> source.put("type", "url").put("url", url.url());
            }
        }
        return view;
    }

    static List<ObjectNode> messages(List<ConversationMessage> stored, boolean assistantMessages,
            Function<String, Optional<String>> earlierCall, Function<String, Optional<ToolOutcome>> laterOutcome) {
        Map<String, ToolOutcome> outcomes = new HashMap<>();
        for (ConversationMessage m : stored) {
            if (m.role() == MessageRole.TOOL) {
                m.toolCallId().ifPresent(id -> outcomes.put(id, m.toolOutcome().orElse(ToolOutcome.OK)));
            }
        }
        Set<String> callsInPage = new HashSet<>();
        List<ObjectNode> out = new ArrayList<>();
        for (ConversationMessage m : stored) {
            String id = Ids.message(m.id());
            switch (m.role()) {
                case USER -> out.add(m.images().isEmpty() ? message(id, m, "user_message").put("content", m.content())
                        : userWithImages(message(id, m, "user_message"), m));
                case SYSTEM -> out.add(message(id, m, "system_message").put("content", m.content()));
                case ASSISTANT -> {
                    reasoning(out, id, m);
                    if (!m.content().isBlank()) {
                        out.add(m.toolCalls().isEmpty() ? message(id, m, "assistant_message").put("content", m.content())
                                : message(id, m, "reasoning_message").put("reasoning", m.content())
                                        .put("source", "non_reasoner_model").putNull("signature"));
                    }
                    for (MessageToolCall call : m.toolCalls()) {
                        callsInPage.add(call.id());
                        Optional<ToolOutcome> outcome = outcomes.containsKey(call.id()) ? Optional.of(outcomes.get(call.id()))
                                : laterOutcome.apply(call.id());
                        boolean toUser = outcome.map(o -> o.has(ToolOutcome.Effect.MESSAGE_TO_USER)).orElse(false);
                        out.add(toolCall(id, m, call, assistantMessages && toUser));
                    }
                }
                case TOOL -> {
                    String callId = m.toolCallId().orElse("");
                    ToolOutcome outcome = m.toolOutcome().orElse(ToolOutcome.OK);
                    boolean callShown = callsInPage.contains(callId) || earlierCall.apply(callId).isPresent();
                    if (!(assistantMessages && outcome.has(ToolOutcome.Effect.MESSAGE_TO_USER) && callShown)) {
                        ObjectNode o = message(id, m, "tool_return_message");
                        o.put("tool_return", m.content());
                        o.put("status", outcome.failed() ? "error" : "success");
                        o.put("tool_call_id", callId);
                        o.putNull("stdout");
                        o.putNull("stderr");
                        out.add(o);
                    }
                }
            }
        }
        return out;
    }

    /**
     * The model's own reasoning behind an assistant message, as Letta shows a reasoner model's: a
     * {@code reasoning_message} with {@code source: "reasoner_model"} and the provider's {@code signature}, then a
     * {@code hidden_reasoning_message} ({@code state: "redacted"}) for each part the provider gave only encrypted.
     */
    private static void reasoning(List<ObjectNode> out, String id, ConversationMessage m) {
        MessageReasoning r = m.reasoning();
        if (!r.text().isEmpty()) {
            ObjectNode o = message(id, m, "reasoning_message").put("reasoning", r.text()).put("source", "reasoner_model");
            if (r.signature().isEmpty()) {
                o.putNull("signature");
            } else {
                o.put("signature", r.signature());
            }
            out.add(o);
        }
        for (String data : r.redacted()) {
            out.add(message(id, m, "hidden_reasoning_message").put("state", "redacted").put("hidden_reasoning", data));
        }
    }

    private static ObjectNode toolCall(String id, ConversationMessage m, MessageToolCall call, boolean asMessage) {
        if (asMessage) {
            return message(id, m, "assistant_message").put("content", parseOrEmpty(call.arguments()).path(MESSAGE_ARGUMENT).asString(""));
        }
        ObjectNode o = message(id, m, "tool_call_message");
        ObjectNode tc = o.putObject("tool_call");
        tc.put("name", call.name());
        tc.put("arguments", call.arguments());
        tc.put("tool_call_id", call.id());
        o.putArray("tool_calls").add(tc.deepCopy());
        return o;
    }

    /** Letta's {@code ApprovalRequestMessage} for a call waiting for approval. */
    static ObjectNode approvalRequest(String id, Instant date, String toolName, String arguments, String callId) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", id);
        o.put("date", date(date));
        o.put("message_type", "approval_request_message");
        ObjectNode tc = o.putObject("tool_call");
        tc.put("name", toolName);
        tc.put("arguments", arguments);
        tc.put("tool_call_id", callId);
        o.putArray("tool_calls").add(tc.deepCopy());
        return o;
    }

    private static ObjectNode message(String id, ConversationMessage m, String type) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", id);
        o.put("date", date(m.createdAt()));
        o.put("message_type", type);
        o.putNull("name");
        o.putNull("otid");
        o.putNull("sender_id");
        o.putNull("step_id");
        o.put("is_err", false);
        o.putNull("run_id");
        return o;
    }

    private static JsonNode parseOrEmpty(String json) {
        try {
            return Body.JSON.readTree(json);
        } catch (RuntimeException e) {
            return Body.JSON.createObjectNode();
        }
    }
}

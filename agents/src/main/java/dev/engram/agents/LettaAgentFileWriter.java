package dev.engram.agents;

import dev.engram.framework.ToolDefinition;
import dev.engram.memory.Block;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MessageToolCall;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes agents as Letta's Agent File ({@code AgentFileSchema}): agents with their system prompt,
 * model ({@code llm_config}), tags, tool and block ids, tool rules, messages and which are in context;
 * the blocks and tools they use, each once. Engram's own settings that Letta has no field for (block
 * permissions beyond {@code read_only}, block type, approval mode, step cap, allow and deny lists) go
 * into {@code metadata}, so that {@link LettaAgentFile} reads the file back identically. Ids are the
 * file's own ({@code agent-0}, {@code block-0}, {@code tool-0}, {@code message-0}), and the output is
 * the same for the same agents.
 */
final class LettaAgentFileWriter {
    /** One agent to write. */
    record Entry(AgentDefinition definition, List<Block> blocks, List<ConversationMessage> messages,
            Map<String, ToolDefinition> tools) {
    }

    private LettaAgentFileWriter() {
    }

    static String write(List<Entry> entries) {
        ObjectNode root = Heartbeats.JSON.createObjectNode();
        ArrayNode agents = root.putArray("agents");
        root.putArray("groups");
        ArrayNode blocks = root.putArray("blocks");
        root.putArray("files");
        root.putArray("sources");
        ArrayNode tools = root.putArray("tools");
        root.putArray("mcp_servers");
        Map<String, String> blockIds = new LinkedHashMap<>(); // owner/label -> block id
        Map<String, String> toolIds = new LinkedHashMap<>();
        int messageNumber = 0;
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            AgentDefinition d = e.definition();
            ObjectNode a = agents.addObject();
            a.put("name", d.name());
            a.putArray("memory_blocks");
            a.putArray("tools");
            ArrayNode aTools = a.putArray("tool_ids");
            for (String name : d.tools()) {
                aTools.add(toolIds.computeIfAbsent(name, n -> tool(tools, "tool-" + toolIds.size(), n, d, e.tools().get(n))));
            }
            ArrayNode aBlocks = a.putArray("block_ids");
            for (Block b : e.blocks()) {
                String key = b.ownerAgentId() + "/" + b.label();
                String id = blockIds.get(key);
                if (id == null) {
                    id = "block-" + blockIds.size();
                    blockIds.put(key, id);
                    block(blocks.addObject(), id, b);
                }
                aBlocks.add(id);
            }
            a.set("tool_rules", ToolRules.toJson(d.toolRules()));
            ArrayNode tags = a.putArray("tags");
            d.tags().forEach(tags::add);
            a.put("system", d.systemPrompt());
            a.put("agent_type", d.agentType().lettaName());
            a.put("include_base_tools", false);
            a.set("llm_config", llmConfig(d));
            LettaFileParts.writeLlmConfig(d.modelSettings(), (ObjectNode) a.get("llm_config"));
            a.set("model_settings", LettaFileParts.modelSettingsJson(d.modelSettings(),
                    d.model().contains(":") ? d.model().substring(0, d.model().indexOf(':')) : ""));
            d.description().ifPresent(text -> a.put("description", text));
            d.timezone().ifPresent(zone -> a.put("timezone", zone.getId()));
            a.put("max_files_open", d.fileLimits().maxFilesOpen())
                    .put("per_file_view_window_char_limit", d.fileLimits().viewWindowChars());
            ObjectNode metadata = (ObjectNode) Heartbeats.JSON.readTree(d.metadata());
            a.set("metadata", metadata);
            ObjectNode engram = metadata.putObject("engram");
            engram.put("approval_mode", d.approvalMode().name().toLowerCase(Locale.ROOT));
            engram.put("max_steps", d.maxSteps());
            engram.put("model", d.model());
            d.allowTools().forEach(engram.withArray("allow_tools")::add);
            d.denyTools().forEach(engram.withArray("deny_tools")::add);
            a.put("enable_sleeptime", d.sleeptime().isPresent());
            d.sleeptime().ifPresent(st -> engram.putObject("sleeptime").put("every_messages", st.everyMessages())
                    .put("model", st.model()).put("max_steps", st.maxSteps()));
            a.put("id", "agent-" + i);
            ArrayNode inContext = a.putArray("in_context_message_ids");
            ArrayNode messages = a.putArray("messages");
            String systemId = "message-" + messageNumber++;
            messages.addObject().put("type", "message").put("role", "system").put("id", systemId)
                    .putArray("content").addObject().put("type", "text").put("text", d.systemPrompt());
            inContext.add(systemId);
            for (ConversationMessage m : e.messages()) {
                String id = "message-" + messageNumber++;
                message(messages.addObject(), id, m);
                if (m.inContext()) {
                    inContext.add(id);
                }
            }
        }
        root.putObject("metadata").put("exported_by", "engram");
        return root.toPrettyString();
    }

    private static String tool(ArrayNode tools, String id, String name, AgentDefinition d, ToolDefinition definition) {
        ObjectNode t = tools.addObject();
        t.put("id", id);
        DeclaredTool declared = d.declaredTools().stream().filter(x -> x.name().equals(name)).findFirst().orElse(null);
        ObjectNode schema = Heartbeats.JSON.createObjectNode();
        if (declared != null) {
            t.put("tool_type", declared.kind()).put("description", declared.description()).put("source_type", declared.sourceType())
                    .put("name", name).put("source_code", declared.sourceCode());
            if (declared.returnCharLimit() > 0) {
                t.put("return_char_limit", declared.returnCharLimit());
            }
            schema.put("name", name).put("description", declared.description());
            schema.set("parameters", Heartbeats.JSON.readTree(declared.parameters()));
        } else {
            String reverse = LettaTools.lettaName(name);
            t.put("tool_type", LettaTools.toolType(name)).put("description", definition == null ? "" : definition.description())
                    .put("source_type", "json").put("name", reverse);
            schema.put("name", reverse).put("description", definition == null ? "" : definition.description());
            if (definition != null) {
                schema.set("parameters", definition.parameters());
            }
        }
        t.set("json_schema", schema);
        return id;
    }

    private static void block(ObjectNode o, String id, Block b) {
        o.put("value", b.value());
        o.put("limit", b.limit());
        o.put("label", b.label());
        o.put("read_only", b.permission() == MemoryPermission.READ_ONLY);
        o.put("description", b.description());
        ObjectNode meta = o.putObject("metadata");
        meta.put("engram_permission", b.permission().name().toLowerCase(Locale.ROOT));
        meta.put("engram_type", b.type().name().toLowerCase(Locale.ROOT));
        meta.put("engram_pinned", b.pinned());
        o.put("id", id);
    }

    private static void message(ObjectNode o, String id, ConversationMessage m) {
        o.put("type", "message");
        o.put("role", m.role().name().toLowerCase(Locale.ROOT));
        ArrayNode content = o.putArray("content");
        // The model's own reasoning first, as Letta writes it: a native reasoning part, then each encrypted part.
        if (!m.reasoning().text().isEmpty()) {
            ObjectNode r = content.addObject().put("type", "reasoning").put("is_native", true).put("reasoning", m.reasoning().text());
            if (m.reasoning().signature().isEmpty()) {
                r.putNull("signature");
            } else {
                r.put("signature", m.reasoning().signature());
            }
        }
        m.reasoning().redacted().forEach(data -> content.addObject().put("type", "redacted_reasoning").put("data", data));
        content.addObject().put("type", "text").put("text", m.content());
        o.put("id", id);
        if (!m.toolCalls().isEmpty()) {
            ArrayNode calls = o.putArray("tool_calls");
            for (MessageToolCall c : m.toolCalls()) {
                ObjectNode call = calls.addObject().put("id", c.id()).put("type", "function");
                call.putObject("function").put("name", c.name()).put("arguments", c.arguments());
            }
        }
        m.toolCallId().ifPresent(c -> o.put("tool_call_id", c));
        m.toolOutcome().ifPresent(t -> o.putArray("tool_returns").addObject().put("tool_call_id", m.toolCallId().orElse(""))
                .put("status", t.failed() ? "error" : "success").put("func_response", m.content()));
    }

    /**
     * Letta's {@code llm_config} for a model spec. A spec at a provider Letta knows is written as Letta
     * writes it; an OpenAI-compatible endpoint ({@code http://host/v1#model}) as Letta's {@code openai} type
     * at that endpoint; anything else (a scripted model) as {@code openai} with the spec as the model name.
     * The spec itself goes to {@code metadata.engram.model}, which the reader prefers.
     */
    static ObjectNode llmConfig(AgentDefinition d) {
        ObjectNode llm = Heartbeats.JSON.createObjectNode();
        String spec = d.model();
        int colon = spec.indexOf(':');
        String provider = colon > 0 ? spec.substring(0, colon) : "";
        String type = LettaNames.PROVIDERS.entrySet().stream().filter(e -> e.getValue().equals(provider))
                .map(Map.Entry::getKey).findFirst().orElse(null);
        if (dev.engram.framework.model.ModelSpec.namesEndpoint(spec)) {
            int hash = spec.indexOf('#');
            llm.put("model", hash > 0 ? spec.substring(hash + 1) : spec);
            llm.put("model_endpoint_type", "openai");
            llm.put("model_endpoint", hash > 0 ? spec.substring(0, hash) : spec);
        } else if (type != null) {
            String model = spec.substring(colon + 1);
            llm.put("model", model);
            llm.put("model_endpoint_type", type);
            llm.put("model_endpoint", LettaNames.STANDARD_ENDPOINTS.get(type));
            llm.put("handle", type + "/" + model);
        } else {
            llm.put("model", spec);
            llm.put("model_endpoint_type", "openai");
        }
        llm.put("context_window", d.contextWindowTokens());
        return llm;
    }
}

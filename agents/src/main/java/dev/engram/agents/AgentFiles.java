package dev.engram.agents;

import dev.engram.framework.ApprovalMode;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.BlockType;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageRole;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.ToolOutcome;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON forms of agents: the definition document kept in the store, and the agent file that
 * {@link AgentRuntime#exportAgent} writes: the definition, the current blocks, the archival entries
 * and every message with its in-context flag.
 */
final class AgentFiles {
    static final String FORMAT = "engram-agent";
    static final int VERSION = 1;

    private AgentFiles() {
    }

    /** What an agent file holds. */
    record Contents(AgentDefinition definition, List<NewBlock> blocks, List<NewArchivalEntry> archival,
            List<NewMessage> messages, List<Boolean> inContext) {
    }

    static ObjectNode definitionJson(AgentDefinition d) {
        ObjectNode o = Heartbeats.JSON.createObjectNode();
        o.put("id", d.id());
        o.put("user_id", d.userId());
        o.put("name", d.name());
        o.put("system_prompt", d.systemPrompt());
        o.put("model", d.model());
        o.put("agent_type", d.agentType().lettaName());
        if (!d.modelSettings().isProviderDefaults()) {
            o.set("model_settings", d.modelSettings().toJson());
        }
        d.description().ifPresent(v -> o.put("description", v));
        if (!d.metadata().equals("{}")) {
            o.set("metadata", Heartbeats.JSON.readTree(d.metadata()));
        }
        d.timezone().ifPresent(z -> o.put("timezone", z.getId()));
        ArrayNode blocks = o.putArray("blocks");
        d.blocks().forEach(b -> blocks.add(blockJson(b)));
        strings(o.putArray("tools"), d.tools());
        strings(o.putArray("allow_tools"), d.allowTools());
        strings(o.putArray("deny_tools"), d.denyTools());
        o.put("approval_mode", d.approvalMode().name().toLowerCase(Locale.ROOT));
        o.put("context_window_tokens", d.contextWindowTokens());
        d.maxFilesOpen().ifPresent(n -> o.put("max_files_open", n));
        d.perFileViewWindowCharLimit().ifPresent(n -> o.put("per_file_view_window_char_limit", n));
        o.put("max_steps", d.maxSteps());
        d.parentAgentId().ifPresent(p -> o.put("parent_agent_id", p));
        if (!d.toolRules().isEmpty()) {
            o.set("tool_rules", ToolRules.toJson(d.toolRules()));
        }
        if (!d.tags().isEmpty()) {
            strings(o.putArray("tags"), d.tags());
        }
        d.sleeptime().ifPresent(st -> {
            ObjectNode n = o.putObject("sleeptime").put("every_messages", st.everyMessages()).put("model", st.model())
                    .put("max_steps", st.maxSteps());
            st.idleAfter().ifPresent(i -> n.put("idle_after_seconds", i.toSeconds()));
        });
        d.actsFor().ifPresent(a -> o.put("acts_for", a));
        if (!d.toolAccess().isNone()) {
            ObjectNode access = o.putObject("tool_access");
            d.toolAccess().workspace().ifPresent(w -> access.put("workspace", w.toString()));
            strings(access.putArray("shell"), d.toolAccess().shell());
            access.put("web", d.toolAccess().web());
        }
        if (!d.sharedBlocks().isEmpty()) {
            ArrayNode shared = o.putArray("shared_blocks");
            d.sharedBlocks().forEach(a -> shared.addObject().put("owner_agent_id", a.ownerAgentId()).put("label", a.label())
                    .put("permission", a.permission().name().toLowerCase(Locale.ROOT)));
        }
        if (!d.declaredTools().isEmpty()) {
            ArrayNode declared = o.putArray("declared_tools");
            for (DeclaredTool t : d.declaredTools()) {
                declared.addObject().put("name", t.name()).put("description", t.description()).put("kind", t.kind())
                        .put("source_type", t.sourceType()).put("source_code", t.sourceCode())
                        .put("return_char_limit", t.returnCharLimit())
                        .set("parameters", Heartbeats.JSON.readTree(t.parameters()));
            }
        }
        return o;
    }

    static AgentDefinition definition(JsonNode o, String what) {
        try {
            AgentDefinition.Builder b = AgentDefinition.builder(text(o, "user_id", what))
                    .id(text(o, "id", what)).name(text(o, "name", what))
                    .systemPrompt(o.path("system_prompt").asString(AgentDefinition.DEFAULT_SYSTEM_PROMPT))
                    .model(text(o, "model", what))
                    .tools(strings(o.path("tools")))
                    .approvalMode(FileEnums.parse(ApprovalMode.class, o.path("approval_mode").asString("auto"), "approval_mode"))
                    .contextWindowTokens(ContextWindows.clamp(text(o, "model", what),
                            o.path("context_window_tokens").asInt(AgentDefinition.DEFAULT_CONTEXT_WINDOW)))
                    .maxSteps(o.path("max_steps").asInt(AgentDefinition.DEFAULT_MAX_STEPS))
                    .toolRules(ToolRules.parse(o.path("tool_rules")))
                    .tags(strings(o.path("tags")))
                    // Definitions stored before agents had a type ran the heartbeat loop of the default type.
                    .agentType(o.hasNonNull("agent_type") ? AgentType.fromLetta(o.get("agent_type").asString())
                            : AgentDefinition.DEFAULT_AGENT_TYPE)
                    .modelSettings(ModelSettings.fromJson(o.path("model_settings")));
            if (o.hasNonNull("description")) {
                b.description(o.get("description").asString());
            }
            if (o.path("metadata").isObject()) {
                b.metadata(o.get("metadata").toString());
            }
            if (o.hasNonNull("timezone")) {
                b.timezone(timezone(o.get("timezone").asString()));
            }
            if (o.hasNonNull("max_files_open")) {
                b.maxFilesOpen(o.get("max_files_open").asInt());
            }
            if (o.hasNonNull("per_file_view_window_char_limit")) {
                b.perFileViewWindowCharLimit(o.get("per_file_view_window_char_limit").asInt());
            }
            List<DeclaredTool> declared = new ArrayList<>();
            for (JsonNode t : o.path("declared_tools")) {
                declared.add(new DeclaredTool(t.path("name").asString(""), t.path("description").asString(""),
                        t.path("parameters").toString(), t.path("kind").asString(""), t.path("source_type").asString(""),
                        t.path("source_code").asString(""), t.path("return_char_limit").asInt(0)));
            }
            b.declaredTools(declared);
            List<BlockAttachment> shared = new ArrayList<>();
            for (JsonNode a : o.path("shared_blocks")) {
                shared.add(new BlockAttachment(a.path("owner_agent_id").asString(""), a.path("label").asString(""),
                        FileEnums.parse(MemoryPermission.class, a.path("permission").asString("read_only"), "shared_blocks.permission")));
            }
            b.sharedBlocks(shared);
            JsonNode st = o.path("sleeptime");
            if (st.isObject()) {
                b.sleeptime(new SleeptimeSettings(st.path("every_messages").asInt(SleeptimeSettings.DEFAULT_EVERY),
                        st.hasNonNull("idle_after_seconds") ? Optional.of(java.time.Duration.ofSeconds(st.path("idle_after_seconds").asLong()))
                                : Optional.empty(),
                        st.path("model").asString(o.path("model").asString("")), st.path("max_steps").asInt(SleeptimeSettings.DEFAULT_MAX_STEPS)));
            }
            JsonNode access = o.path("tool_access");
            if (access.isObject()) {
                b.toolAccess(new ToolAccess(Optional.ofNullable(access.hasNonNull("workspace")
                        ? java.nio.file.Path.of(access.get("workspace").asString()) : null), strings(access.path("shell")),
                        access.path("web").asBoolean(false)));
            }
            if (o.hasNonNull("acts_for")) {
                b.actsFor(o.get("acts_for").asString());
            }
            for (JsonNode block : o.path("blocks")) {
                b.block(block(block));
            }
            b.allowTools(strings(o.path("allow_tools")).toArray(String[]::new));
            b.denyTools(strings(o.path("deny_tools")).toArray(String[]::new));
            if (o.hasNonNull("parent_agent_id")) {
                b.parentAgentId(o.get("parent_agent_id").asString());
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new AgentException(what + " is not a valid agent definition: " + e.getMessage(), e);
        }
    }

    static String exportJson(AgentDefinition d, List<Block> blocks, List<ArchivalEntry> archival,
            List<ConversationMessage> messages) {
        ObjectNode root = Heartbeats.JSON.createObjectNode();
        root.put("format", FORMAT);
        root.put("version", VERSION);
        root.set("agent", definitionJson(d));
        ArrayNode b = root.putArray("blocks");
        for (Block block : blocks) {
            if (block.ownerAgentId().equals(d.id())) {
                b.add(blockJson(new NewBlock(block.label(), block.description(), block.value(), block.limit(),
                        block.type(), block.permission(), block.pinned())));
            }
        }
        ArrayNode a = root.putArray("archival");
        for (ArchivalEntry e : archival) {
            ObjectNode entry = a.addObject();
            e.label().ifPresent(l -> entry.put("label", l));
            entry.put("content", e.content());
            strings(entry.putArray("tags"), e.tags());
        }
        ArrayNode m = root.putArray("messages");
        for (ConversationMessage msg : messages) {
            ObjectNode o = m.addObject();
            o.put("session", msg.sessionId());
            o.put("role", msg.role().name().toLowerCase(Locale.ROOT));
            o.put("content", msg.content());
            if (!msg.toolCalls().isEmpty()) {
                ArrayNode calls = o.putArray("tool_calls");
                for (MessageToolCall c : msg.toolCalls()) {
                    calls.addObject().put("id", c.id()).put("name", c.name()).put("arguments", c.arguments());
                }
            }
            msg.toolCallId().ifPresent(id -> o.put("tool_call_id", id));
            msg.toolOutcome().ifPresent(t -> o.put("tool_status", t.status().code()).put("tool_effects", t.effectCodes()));
            if (!msg.reasoning().isEmpty()) {
                ObjectNode r = o.putObject("reasoning").put("text", msg.reasoning().text())
                        .put("signature", msg.reasoning().signature());
                strings(r.putArray("redacted"), msg.reasoning().redacted());
            }
            o.put("created_at", msg.createdAt().toString());
            o.put("in_context", msg.inContext());
        }
        return root.toPrettyString();
    }

    static Contents parse(String json, String what) {
        JsonNode root;
        try {
            root = Heartbeats.JSON.readTree(json);
        } catch (JacksonException e) {
            throw new AgentException(what + " is not valid JSON: " + e.getOriginalMessage());
        }
        if (!FORMAT.equals(root.path("format").asString(""))) {
            throw new AgentException(what + " is not an Engram agent file (its \"format\" is not \"" + FORMAT + "\").");
        }
        int version = root.path("version").asInt(-1);
        if (version != VERSION) {
            throw new AgentException(what + " has agent-file version " + version + "; this Engram reads version " + VERSION + ".");
        }
        AgentDefinition d = definition(root.path("agent"), what);
        try {
            List<NewBlock> blocks = new ArrayList<>();
            for (JsonNode b : root.path("blocks")) {
                blocks.add(block(b));
            }
            List<NewArchivalEntry> archival = new ArrayList<>();
            for (JsonNode e : root.path("archival")) {
                archival.add(new NewArchivalEntry(Optional.ofNullable(e.hasNonNull("label") ? e.get("label").asString() : null),
                        e.path("content").asString(""), strings(e.path("tags"))));
            }
            List<NewMessage> messages = new ArrayList<>();
            List<Boolean> inContext = new ArrayList<>();
            for (JsonNode m : root.path("messages")) {
                MessageRole role = FileEnums.parse(MessageRole.class, m.path("role").asString(""), "messages.role");
                List<MessageToolCall> calls = new ArrayList<>();
                for (JsonNode c : m.path("tool_calls")) {
                    calls.add(new MessageToolCall(c.path("id").asString(""), c.path("name").asString(""),
                            c.path("arguments").asString("")));
                }
                // A tool message of a file written before outcomes were stored is taken as a call that ran.
                Optional<ToolOutcome> outcome = role != MessageRole.TOOL ? Optional.empty()
                        : Optional.of(m.hasNonNull("tool_status") ? ToolOutcome.fromCodes(m.get("tool_status").asString(),
                                m.path("tool_effects").asString("")) : ToolOutcome.OK);
                JsonNode r = m.path("reasoning");
                MessageReasoning reasoning = r.isObject() ? new MessageReasoning(r.path("text").asString(""),
                        r.path("signature").asString(""), strings(r.path("redacted"))) : MessageReasoning.NONE;
                messages.add(new NewMessage(m.path("session").asString("default"), role, m.path("content").asString(""), calls,
                        Optional.ofNullable(m.hasNonNull("tool_call_id") ? m.get("tool_call_id").asString() : null), outcome,
                        List.of(), reasoning));
                inContext.add(m.path("in_context").asBoolean(true));
            }
            return new Contents(d, blocks, archival, messages, inContext);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new AgentException(what + " has an invalid entry: " + e.getMessage(), e);
        }
    }

    private static ObjectNode blockJson(NewBlock b) {
        ObjectNode o = Heartbeats.JSON.createObjectNode();
        o.put("label", b.label());
        o.put("description", b.description());
        o.put("value", b.value());
        o.put("limit", b.limit());
        o.put("type", b.type().name().toLowerCase(Locale.ROOT));
        o.put("permission", b.permission().name().toLowerCase(Locale.ROOT));
        o.put("pinned", b.pinned());
        return o;
    }

    private static NewBlock block(JsonNode o) {
        return NewBlock.builder(o.path("label").asString(""))
                .description(o.path("description").asString(""))
                .value(o.path("value").asString(""))
                .limit(o.path("limit").asInt(NewBlock.DEFAULT_LIMIT))
                .type(FileEnums.parse(BlockType.class, o.path("type").asString("core"), "blocks.type"))
                .permission(FileEnums.parse(MemoryPermission.class, o.path("permission").asString("read_write"), "blocks.permission"))
                .pinned(o.path("pinned").asBoolean(false))
                .build();
    }

    /** The IANA zone {@code id}; an {@link IllegalArgumentException} saying what a zone looks like. */
    static ZoneId timezone(String id) {
        try {
            return ZoneId.of(id);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("timezone '" + id + "' is not an IANA time zone such as Europe/Paris or UTC");
        }
    }

    private static String text(JsonNode o, String field, String what) {
        String v = o.path(field).asString("");
        if (v.isBlank()) {
            throw new AgentException(what + " has no \"" + field + "\".");
        }
        return v;
    }

    private static void strings(ArrayNode out, List<String> values) {
        values.forEach(out::add);
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString()));
        return out;
    }
}

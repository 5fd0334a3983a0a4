package dev.engram.agents;

import dev.engram.framework.ApprovalMode;
import dev.engram.memory.BlockType;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.ToolOutcome;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads Letta's Agent File ({@code .af}, the {@code AgentFileSchema} of Letta's V1 API) into Engram
 * agents, checking every field before anything is stored and naming the field that is wrong. What is
 * imported, mapped and ignored is tabled in the agents README ("Coming from Letta"). Writing is
 * {@link LettaAgentFileWriter}'s.
 */
final class LettaAgentFile {
    /** Letta's default block limit, used when a block has none. */
    static final int LETTA_BLOCK_LIMIT = 20_000;
    /** An agent of the file, mapped and checked, ready to store (blocks of earlier agents it uses are in its definition). */
    record Mapped(AgentDefinition definition, List<NewBlock> blocks, List<NewMessage> messages, List<Boolean> inContext) {
    }

    /**
     * How to give a runtime the Engram tool that stands for one of Letta's built-ins, for the import warning:
     * the command line's flag first, then the builder method.
     */
    private static final Map<String, String> ENABLED_BY = Map.of(
            "web_search", "enable it with --web (engram chat --web, engram serve --web; a search provider too: "
                    + "BRAVE_API_KEY, TAVILY_API_KEY or SEARXNG_URL) or AgentRuntime.Builder.web",
            "run_code", "enable it with --code (engram chat --code, engram serve --code) or AgentRuntime.Builder.code",
            "web_fetch", "import the agent where the web tools are enabled, with --web (engram serve --web) or "
                    + "AgentRuntime.Builder.web, and it gets web_fetch in its place");

    private final String source;
    private final JsonNode root;
    private final List<String> warnings = new ArrayList<>();
    /** The positions in the file of the agents to import: all but sleep-time companions, which become settings. */
    private final List<Integer> imported = new ArrayList<>();
    private final List<LettaFileParts.SleeptimeGroup> sleeptimeGroups;

    private LettaAgentFile(String source, JsonNode root) {
        this.source = source;
        this.root = root;
        this.sleeptimeGroups = LettaFileParts.sleeptimeGroups(root, source);
        Set<String> companions = new HashSet<>();
        sleeptimeGroups.forEach(g -> companions.addAll(g.companionIds()));
        JsonNode agents = root.path("agents");
        for (int i = 0; i < agents.size(); i++) {
            String id = agents.get(i).path("id").asString("");
            if (companions.contains(id)) {
                warnings.add("agent '" + agents.get(i).path("name").asString(id) + "' is a sleep-time companion; it became its "
                        + "agent's sleep-time companion (sleeptime settings), not an agent of its own");
            } else {
                imported.add(i);
            }
        }
    }

    /** Parses the file (also when it is a JSON string holding the document, as some published files are). */
    static LettaAgentFile parse(String json, String source) {
        JsonNode root;
        try {
            root = Heartbeats.JSON.readTree(json);
            if (root.isString()) {
                root = Heartbeats.JSON.readTree(root.asString());
            }
        } catch (JacksonException e) {
            throw new AgentException("Agent file " + source + " is not valid JSON: " + e.getOriginalMessage() + ". Nothing was stored.");
        }
        if (!root.isObject() || !root.path("agents").isArray()) {
            throw new AgentException("Agent file " + source + " is not a Letta agent file: it has no \"agents\" array. Nothing was stored.");
        }
        return new LettaAgentFile(source, root);
    }

    /** Whether {@code json} looks like a Letta agent file rather than Engram's own. */
    static boolean isLetta(String json) {
        try {
            JsonNode root = Heartbeats.JSON.readTree(json);
            return root.isString() || (root.isObject() && root.has("agents") && !root.has("format"));
        } catch (JacksonException e) {
            return false;
        }
    }

    /**
     * Applies Letta's import options to the file before it is mapped: a name for every agent, {@code _copy} after
     * each name, no messages.
     */
    void apply(AgentImport options) {
        for (JsonNode a : root.path("agents")) {
            if (a instanceof ObjectNode agent) {
                options.name().ifPresent(n -> agent.put("name", n));
                if (options.copySuffix()) {
                    agent.put("name", agent.path("name").asString("") + "_copy");
                }
                if (options.strippingMessages()) {
                    agent.putArray("messages");
                    agent.putArray("in_context_message_ids");
                }
            }
        }
    }

    List<String> warnings() {
        return List.copyOf(warnings);
    }

    /** The whole file, as parsed. */
    JsonNode root() {
        return root;
    }

    /** The file's agents that are imported, in file order. */
    List<JsonNode> agentNodes() {
        List<JsonNode> out = new ArrayList<>();
        imported.forEach(i -> out.add(root.path("agents").get(i)));
        return out;
    }

    int agentCount() {
        return imported.size();
    }

    /** The agents' names, in file order. */
    List<String> names() {
        List<String> names = new ArrayList<>();
        imported.forEach(i -> names.add(root.path("agents").get(i).path("name").asString("")));
        return names;
    }

    /**
     * Maps every agent of the file for {@code userId}.
     *
     * @param ids           the Engram id of each agent, in file order
     * @param model         the model to use instead of the file's
     * @param runtimeTools  the tools the runtime has, which Letta's built-ins map to
     * @param grants        what the file may ask for: its models are checked, what it asks beyond that is dropped
     * @param dropped       where what was dropped is listed
     */
    List<Mapped> map(String userId, List<String> ids, Optional<String> model, Set<String> runtimeTools, ImportGrants grants,
            List<DroppedGrant> dropped) {
        Map<String, JsonNode> blocksById = new HashMap<>();
        for (JsonNode b : root.path("blocks")) {
            blocksById.put(b.path("id").asString(""), b);
        }
        Map<String, JsonNode> toolsById = new HashMap<>();
        for (JsonNode t : root.path("tools")) {
            toolsById.put(t.path("id").asString(""), t);
        }
        Map<String, String> blockOwner = new HashMap<>(); // block id -> Engram agent id
        List<Mapped> out = new ArrayList<>();
        for (int k = 0; k < agentCount(); k++) {
            JsonNode a = root.path("agents").get(imported.get(k));
            String at = "agents[" + imported.get(k) + "]";
            try {
                Mapped m = agent(a, at, userId, ids.get(k), model, runtimeTools, blocksById, toolsById, blockOwner, grants);
                LettaFileParts.notImported(a, m.definition().name(), at, dropped);
                List<NewBlock> blocks = new ArrayList<>();
                for (NewBlock nb : m.blocks()) {
                    blocks.add(grants.limit(nb, m.definition().name(), at + " block '" + nb.label() + "' metadata.engram_permission",
                            dropped));
                }
                out.add(new Mapped(grants.limit(m.definition(), at + ".metadata.engram.", Set.copyOf(ids), dropped), blocks,
                        m.messages(), m.inContext()));
            } catch (IllegalArgumentException | NullPointerException e) {
                throw error(at, e.getMessage());
            }
        }
        if (!out.isEmpty()) {
            LettaFileParts.notImported(root, out.getFirst().definition().name(), dropped);
        }
        return out;
    }

    private Mapped agent(JsonNode a, String at, String userId, String id, Optional<String> model, Set<String> runtimeTools,
            Map<String, JsonNode> blocksById, Map<String, JsonNode> toolsById, Map<String, String> blockOwner, ImportGrants grants) {
        String name = text(a, "name", at);
        JsonNode engram = a.path("metadata").path("engram");
        String spec = model.orElseGet(() -> model(a, at, grants));
        AgentDefinition.Builder b = AgentDefinition.builder(userId).id(id).name(name)
                .systemPrompt(a.path("system").asString(AgentDefinition.DEFAULT_SYSTEM_PROMPT))
                .model(spec)
                // Letta's agent file schema makes a file without a type a letta_v1_agent, as Letta's create does.
                .agentType(a.hasNonNull("agent_type") ? agentType(a.get("agent_type").asString(), at) : AgentType.LETTA_V1_AGENT);
        try {
            b.modelSettings(LettaFileParts.modelSettings(a));
        } catch (IllegalArgumentException e) {
            throw error(at + ".llm_config", e.getMessage());
        }
        if (!a.path("description").asString("").isBlank()) {
            b.description(a.get("description").asString());
        }
        if (a.path("metadata").isObject()) {
            ObjectNode metadata = ((ObjectNode) a.get("metadata")).deepCopy();
            metadata.remove("engram");
            b.metadata(metadata.toString());
        }
        if (!a.path("timezone").asString("").isBlank()) {
            try {
                b.timezone(ZoneId.of(a.get("timezone").asString()));
            } catch (DateTimeException e) {
                throw error(at + ".timezone", "is '" + a.get("timezone").asString() + "', which is not a time zone (use e.g. "
                        + "UTC or Europe/Lisbon)");
            }
        }
        int window = a.path("llm_config").path("context_window").asInt(AgentDefinition.DEFAULT_CONTEXT_WINDOW);
        b.contextWindowTokens(ContextWindows.clamp(spec, Math.max(window, AgentDefinition.MIN_CONTEXT_WINDOW)));
        fileLimits(a, at, b);
        if (engram.isObject()) {
            b.maxSteps(engram.path("max_steps").asInt(AgentDefinition.DEFAULT_MAX_STEPS))
                    .approvalMode(approvalMode(engram.path("approval_mode").asString("auto"), at))
                    .allowTools(strings(engram.path("allow_tools")).toArray(String[]::new))
                    .denyTools(strings(engram.path("deny_tools")).toArray(String[]::new));
        }
        List<String> tools = new ArrayList<>();
        List<DeclaredTool> declared = new ArrayList<>();
        for (String toolId : strings(a.path("tool_ids"))) {
            JsonNode t = toolsById.get(toolId);
            if (t == null) {
                throw error(at + ".tool_ids", "names tool '" + toolId + "', which the file's \"tools\" does not have");
            }
            tool(t, "tools[id=" + toolId + "]", runtimeTools, tools, declared);
        }
        for (JsonNode t : a.path("tools")) {
            tool(t, at + ".tools", runtimeTools, tools, declared);
        }
        b.tools(tools).declaredTools(declared).tags(strings(a.path("tags")));
        String fileId = a.path("id").asString("");
        Optional<LettaFileParts.SleeptimeGroup> group = sleeptimeGroups.stream().filter(g -> g.mainId().equals(fileId)).findFirst();
        if (group.isPresent() || a.path("enable_sleeptime").asBoolean(false)) {
            JsonNode st = engram.path("sleeptime");
            // The caller's model replaces the companion's too; a file's own companion model is checked as its main one is.
            String sleeper = model.orElseGet(() -> st.path("model").asString(spec));
            if (model.isEmpty() && !sleeper.equals(spec)) {
                grants.modelRefusal(sleeper).ifPresent(problem -> {
                    throw error(at + ".metadata.engram.sleeptime.model", problem);
                });
            }
            int every = group.map(LettaFileParts.SleeptimeGroup::frequency)
                    .orElseGet(() -> st.path("every_messages").asInt(SleeptimeSettings.DEFAULT_EVERY));
            b.sleeptime(new SleeptimeSettings(every, Optional.empty(),
                    sleeper, st.path("max_steps").asInt(SleeptimeSettings.DEFAULT_MAX_STEPS)));
        }
        try {
            Set<String> toolNames = new HashSet<>(tools);
            declared.forEach(t -> toolNames.add(t.name()));
            tools.forEach(t -> toolNames.add(LettaTools.lettaName(t)));
            ToolRules.parse(a.path("tool_rules")); // every rule is checked, also one that is then dropped
            b.toolRules(ToolRules.parse(LettaFileParts.attachedRules(a.path("tool_rules"), toolNames, name, warnings)));
        } catch (IllegalArgumentException e) {
            throw error(at + ".tool_rules", e.getMessage());
        }
        List<NewBlock> blocks = new ArrayList<>();
        for (String blockId : strings(a.path("block_ids"))) {
            JsonNode block = blocksById.get(blockId);
            if (block == null) {
                throw error(at + ".block_ids", "names block '" + blockId + "', which the file's \"blocks\" does not have");
            }
            String owner = blockOwner.putIfAbsent(blockId, id);
            NewBlock nb = block(block, "blocks[id=" + blockId + "]");
            if (owner == null) {
                blocks.add(nb);
            } else {
                b.sharedBlock(owner, nb.label(), nb.permission());
            }
        }
        int inline = 0;
        for (JsonNode block : a.path("memory_blocks")) {
            blocks.add(block(block, at + ".memory_blocks[" + inline++ + "]"));
        }
        List<NewMessage> messages = new ArrayList<>();
        List<Boolean> inContext = new ArrayList<>();
        messages(a, at, messages, inContext);
        blocks.forEach(b::block);
        return new Mapped(b.build(), blocks, messages, inContext);
    }

    /** A Letta built-in goes to Engram's implementation when the runtime has it; anything else is declared. */
    private void tool(JsonNode t, String at, Set<String> runtimeTools, List<String> tools, List<DeclaredTool> declared) {
        String name = text(t, "name", at);
        String kind = t.path("tool_type").asString("custom");
        String engramName = LettaTools.engramName(name);
        if (!kind.equals("custom") && !kind.startsWith("external") && runtimeTools.contains(engramName)) {
            if (!tools.contains(engramName)) {
                tools.add(engramName);
            }
            return;
        }
        JsonNode schema = t.path("json_schema");
        JsonNode parameters = schema.path("parameters").isObject() ? schema.path("parameters")
                : Heartbeats.JSON.createObjectNode().put("type", "object");
        try {
            declared.add(new DeclaredTool(name, t.path("description").asString(schema.path("description").asString("")),
                    parameters.toString(), kind, t.path("source_type").asString(""), t.path("source_code").asString(""),
                    Math.max(0, t.path("return_char_limit").asInt(0))));
        } catch (IllegalArgumentException e) {
            throw error(at, e.getMessage());
        }
        if (!kind.equals("custom")) {
            warnings.add("tool '" + name + "' (" + kind + ") " + Optional.ofNullable(ENABLED_BY.get(engramName))
                    .map(how -> "is Engram's " + engramName + ", which this runtime was not given: " + how)
                    .orElse("has no Engram implementation in this runtime") + "; calls to it explain how to provide one");
        }
        tools.add(name);
    }

    private AgentType agentType(String type, String at) {
        try {
            return AgentType.fromLetta(type);
        } catch (IllegalArgumentException e) {
            throw error(at + ".agent_type", "cannot be run: " + e.getMessage());
        }
    }

    private NewBlock block(JsonNode b, String at) {
        String label = text(b, "label", at);
        String value = b.path("value").asString("");
        int limit = b.path("limit").isNumber() ? b.path("limit").asInt() : LETTA_BLOCK_LIMIT;
        int size = value.codePointCount(0, value.length());
        if (size > limit) {
            warnings.add("block '" + label + "' holds " + size + " characters, more than its limit of " + limit
                    + "; its limit was raised to " + size);
            limit = size;
        }
        JsonNode engram = b.path("metadata");
        MemoryPermission permission = engram.has("engram_permission")
                ? FileEnums.parse(MemoryPermission.class, engram.path("engram_permission").asString(), "metadata.engram_permission")
                : b.path("read_only").asBoolean(false) ? MemoryPermission.READ_ONLY : MemoryPermission.READ_WRITE;
        try {
            return NewBlock.builder(label).value(value).limit(Math.max(limit, 1))
                    .description(b.path("description").asString("")).permission(permission)
                    .type(FileEnums.parse(BlockType.class, engram.path("engram_type").asString("core"), "metadata.engram_type"))
                    .pinned(engram.path("engram_pinned").asBoolean(false)).build();
        } catch (IllegalArgumentException | dev.engram.memory.MemoryException e) {
            throw error(at, e.getMessage());
        }
    }

    private void messages(JsonNode a, String at, List<NewMessage> messages, List<Boolean> inContext) {
        Set<String> current = Set.copyOf(strings(a.path("in_context_message_ids")));
        JsonNode list = a.path("messages");
        for (int i = 0; i < list.size(); i++) {
            JsonNode m = list.get(i);
            String where = at + ".messages[" + i + "]";
            String role = m.path("role").asString("");
            if (i == 0 && role.equals("system")) {
                continue; // Letta's compiled system prompt: Engram compiles its own from the agent's system prompt
            }
            String content = content(m.path("content"));
            NewMessage message = switch (role) {
                case "user" -> NewMessage.user("default", content);
                case "system" -> NewMessage.system("default", content);
                case "assistant" -> {
                    List<MessageToolCall> calls = new ArrayList<>();
                    for (JsonNode c : m.path("tool_calls")) {
                        JsonNode f = c.path("function");
                        calls.add(new MessageToolCall(text(c, "id", where + ".tool_calls"), text(f, "name", where + ".tool_calls"),
                                f.path("arguments").isString() ? f.path("arguments").asString() : f.path("arguments").toString()));
                    }
                    yield NewMessage.assistant("default", content, calls, reasoning(m.path("content")));
                }
                case "tool" -> NewMessage.tool("default", text(m, "tool_call_id", where), content, toolOutcome(m));
                default -> throw error(where + ".role", "is '" + role + "'; Engram reads user, assistant, system and tool messages");
            };
            messages.add(message);
            inContext.add(current.isEmpty() || current.contains(m.path("id").asString("")));
        }
    }

    /**
     * The model's own reasoning in a Letta message's content parts: the {@code reasoning} parts' text joined and the
     * last signature, and the {@code data} of each {@code redacted_reasoning} part, in order.
     */
    static MessageReasoning reasoning(JsonNode content) {
        if (!content.isArray()) {
            return MessageReasoning.NONE;
        }
        StringBuilder text = new StringBuilder();
        String signature = "";
        List<String> redacted = new ArrayList<>();
        for (JsonNode part : content) {
            switch (part.path("type").asString("")) {
                case "reasoning" -> {
                    text.append(part.path("reasoning").asString(""));
                    signature = part.path("signature").asString(signature);
                }
                case "redacted_reasoning" -> redacted.add(part.path("data").asString(""));
                default -> { }
            }
        }
        return new MessageReasoning(text.toString(), signature, redacted);
    }

    /** Text parts joined (Letta's content is a list of parts or a string). */
    /** A Letta tool message's outcome: its {@code tool_returns}' status ({@code success} or {@code error}). */
    private static ToolOutcome toolOutcome(JsonNode m) {
        for (JsonNode r : m.path("tool_returns")) {
            if (r.path("status").asString("").equals("error")) {
                return ToolOutcome.of(ToolOutcome.Status.ERROR);
            }
        }
        return ToolOutcome.OK;
    }

    static String content(JsonNode content) {
        if (content.isString()) {
            return content.asString();
        }
        StringBuilder sb = new StringBuilder();
        for (JsonNode part : content) {
            if (part.path("type").asString("text").equals("text")) {
                sb.append(part.path("text").asString(""));
            }
        }
        return sb.toString();
    }

    /**
     * The Engram model spec of an agent: {@code metadata.engram.model} when an Engram export wrote it, else
     * Letta's {@code llm_config}. A model the runtime's policy does not allow (an endpoint or script of its own),
     * or at a provider Engram has not, needs {@code --model}: a file never chooses where requests and keys go.
     */
    private String model(JsonNode a, String at, ImportGrants grants) {
        String spec = a.path("metadata").path("engram").path("model").asString("");
        if (!spec.isBlank()) {
            grants.modelRefusal(spec).ifPresent(problem -> {
                throw error(at + ".metadata.engram.model", problem);
            });
            return spec;
        }
        JsonNode llm = a.path("llm_config");
        String config = at + ".llm_config";
        String type = llm.path("model_endpoint_type").asString("");
        String name = llm.path("model").asString("");
        String provider = LettaNames.PROVIDERS.get(type);
        if (provider == null && !name.isBlank() && type.matches("[a-z][a-z0-9_-]*")) {
            // A provider Engram has no adapter for: the agent keeps Letta's handle (nothing is ever sent to it), and
            // its turns say how to give it a model Engram runs.
            String handle = type + ":" + name;
            warnings.add(config + " names model '" + handle + "' at provider '" + type + "', which Engram cannot run; the agent "
                    + "keeps it, and until it is given another model its turns say how");
            return handle;
        }
        if (provider == null || name.isBlank()) {
            throw error(config, "has model endpoint type '" + type + "' (model '" + name + "'), which Engram does not map to a "
                    + "provider: import it with a model of your choice (--model SPEC)");
        }
        String endpoint = llm.path("model_endpoint").asString("").replaceAll("/+$", "");
        if (!endpoint.isEmpty() && !endpoint.equals(LettaNames.STANDARD_ENDPOINTS.get(type))) {
            throw error(config, "sends requests to its own endpoint (" + endpoint + "); an imported file does not choose where "
                    + "requests and API keys go: import it with a model of your choice (--model SPEC)");
        }
        String handle = provider + ":" + name;
        grants.modelRefusal(handle).ifPresent(problem -> {
            throw error(config + ".model", problem);
        });
        return handle;
    }

    private ApprovalMode approvalMode(String mode, String at) {
        for (ApprovalMode m : ApprovalMode.values()) {
            if (m.name().equalsIgnoreCase(mode)) {
                return m;
            }
        }
        throw error(at + ".metadata.engram.approval_mode", "is '" + mode + "'; use ask, auto or yolo");
    }

    private AgentException error(String field, String problem) {
        return new AgentException("Agent file " + source + ": " + field + " " + problem + ". Nothing was stored.");
    }

    private String text(JsonNode o, String field, String at) {
        String v = o.path(field).asString("");
        if (v.isBlank()) {
            throw error(at + "." + field, "is missing or empty");
        }
        return v;
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString("")));
        return out;
    }

    /** A default Engram id for a Letta agent name: lower case, other characters as '-', at most 60. */
    static String slug(String name) {
        String s = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_-]+", "-").replaceAll("^-+|-+$", "");
        s = s.isEmpty() ? "agent" : s;
        return s.length() > 60 ? s.substring(0, 60) : s;
    }

    /** The agent's {@code max_files_open} and {@code per_file_view_window_char_limit}, where the file gives them. */
    private void fileLimits(JsonNode a, String at, AgentDefinition.Builder b) {
        try {
            if (a.path("max_files_open").isNumber()) {
                b.maxFilesOpen(a.get("max_files_open").asInt());
            }
            if (a.path("per_file_view_window_char_limit").isNumber()) {
                b.perFileViewWindowCharLimit(a.get("per_file_view_window_char_limit").asInt());
            }
        } catch (IllegalArgumentException e) {
            throw error(at, e.getMessage());
        }
    }
}

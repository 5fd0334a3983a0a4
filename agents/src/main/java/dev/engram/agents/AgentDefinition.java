package dev.engram.agents;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolPolicy;
import dev.engram.memory.FileLimits;
import dev.engram.memory.NewBlock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * What an agent is: who owns it, how it thinks (system prompt, model and its settings, loop type), what it starts
 * out remembering (its blocks), what it may do (tools, policy, approval) and its limits (context window, step cap).
 * {@link AgentRuntime#create} persists it; the blocks are created in the store then and live there afterwards,
 * edited by the agent.
 *
 * <p>Made with {@link #builder} (or changed with {@link #toBuilder}): the builder is the only way in, so a field
 * added later breaks no caller. Immutable; two definitions are equal when every part is.
 */
public final class AgentDefinition {
    /** The instructions an agent gets when none are given. */
    public static final String DEFAULT_SYSTEM_PROMPT = """
            You are a helpful assistant with a persistent memory that outlives this conversation.
            Your core memory blocks are shown below and are always in your prompt; keep them current with the \
            block tool (append what you learn about the user in "human", about yourself in "persona").
            Older messages leave your context window but stay in recall memory: find them with search or recall. \
            File long-term facts and documents in archival memory with recall, and per-user notes with memory_save.
            The user only sees what you send with send_message, which also ends your turn. \
            Set request_heartbeat to true on a tool call when you need to continue after it returns.""";

    /**
     * The instructions an agent of a {@link AgentType.Loop#UNTIL_REPLY} loop (such as {@code letta_v1_agent}) gets when
     * none are given: {@link #DEFAULT_SYSTEM_PROMPT} without heartbeats and {@code send_message}, which that loop does
     * not use. A definition built with either default gets the one that matches its loop.
     */
    public static final String DEFAULT_V1_SYSTEM_PROMPT = """
            You are a helpful assistant with a persistent memory that outlives this conversation.
            Your core memory blocks are shown below and are always in your prompt; keep them current with the \
            block tool (append what you learn about the user in "human", about yourself in "persona").
            Older messages leave your context window but stay in recall memory: find them with search or recall. \
            File long-term facts and documents in archival memory with recall, and per-user notes with memory_save.
            After each tool call you see its result and go on. To answer the user, reply with your message and no \
            tool call: that message is what the user sees, and it ends your turn.""";

    /** The tools an agent gets when none are named. */
    public static final List<String> DEFAULT_TOOLS = List.of("send_message", "block", "recall", "search",
            "memory_search", "memory_save", "memory_update", "memory_delete");

    /**
     * The loop an agent gets when none is given: {@link AgentType#MEMGPT_V2_AGENT}, heartbeats and
     * {@code send_message}, the loop Engram's agents have always run and {@link #DEFAULT_SYSTEM_PROMPT} describes.
     * (An agent created over Letta's API without a type gets Letta's default, {@link AgentType#LETTA_V1_AGENT}, instead.)
     */
    public static final AgentType DEFAULT_AGENT_TYPE = AgentType.MEMGPT_V2_AGENT;

    /** 32,768 tokens. */
    public static final int DEFAULT_CONTEXT_WINDOW = 32_768;

    /** 10 model calls per message. */
    public static final int DEFAULT_MAX_STEPS = 10;

    /** The smallest context window accepted: room for a system prompt, blocks and a few messages. */
    public static final int MIN_CONTEXT_WINDOW = 1_024;

    private final String id;
    private final String userId;
    private final String name;
    private final String systemPrompt;
    private final String model;
    private final ModelSettings modelSettings;
    private final AgentType agentType;
    private final List<NewBlock> blocks;
    private final List<String> tools;
    private final List<String> allowTools;
    private final List<String> denyTools;
    private final ApprovalMode approvalMode;
    private final int contextWindowTokens;
    private final int maxSteps;
    private final Optional<String> parentAgentId;
    private final List<ToolRule> toolRules;
    private final List<String> tags;
    private final List<DeclaredTool> declaredTools;
    private final List<BlockAttachment> sharedBlocks;
    private final Optional<SleeptimeSettings> sleeptime;
    private final Optional<String> actsFor;
    private final ToolAccess toolAccess;
    private final Optional<String> description;
    private final String metadata;
    private final Optional<ZoneId> timezone;
    private final Optional<Integer> maxFilesOpen;
    private final Optional<Integer> perFileViewWindowCharLimit;

    private AgentDefinition(Builder b, String id) {
        this.id = id;
        this.userId = b.userId;
        this.name = b.name != null ? b.name : id;
        this.systemPrompt = b.systemPrompt;
        this.model = b.model;
        this.modelSettings = b.modelSettings;
        this.agentType = b.agentType;
        this.blocks = List.copyOf(b.blocks);
        this.tools = List.copyOf(b.tools);
        this.allowTools = List.copyOf(b.allowTools);
        this.denyTools = List.copyOf(b.denyTools);
        this.approvalMode = b.approvalMode;
        this.contextWindowTokens = b.contextWindowTokens;
        this.maxSteps = b.maxSteps;
        this.parentAgentId = Optional.ofNullable(b.parentAgentId);
        this.toolRules = List.copyOf(b.toolRules);
        this.tags = List.copyOf(b.tags);
        this.declaredTools = List.copyOf(b.declaredTools);
        this.sharedBlocks = List.copyOf(b.sharedBlocks);
        this.sleeptime = Optional.ofNullable(b.sleeptime);
        this.actsFor = Optional.ofNullable(b.actsFor);
        this.toolAccess = b.toolAccess;
        this.description = Optional.ofNullable(b.description);
        this.metadata = b.metadata;
        this.timezone = Optional.ofNullable(b.timezone);
        this.maxFilesOpen = Optional.ofNullable(b.maxFilesOpen);
        this.perFileViewWindowCharLimit = Optional.ofNullable(b.perFileViewWindowCharLimit);
        DefinitionChecks.check(id, name, blocks, tools, toolRules, declaredTools, sharedBlocks);
        ContextWindows.check(name, model, contextWindowTokens);
    }

    /** Unique per user; letters, digits, {@code -} and {@code _}. */
    public String id() {
        return id;
    }

    /** The user the agent serves. */
    public String userId() {
        return userId;
    }

    /** For people; several agents of a user may share one. */
    public String name() {
        return name;
    }

    /** The agent's instructions, first in every prompt. */
    public String systemPrompt() {
        return systemPrompt;
    }

    /** A model spec as {@code ChatModel.of} reads it, e.g. {@code openai:gpt-4o-mini}. */
    public String model() {
        return model;
    }

    /** How the model generates (temperature, max tokens, reasoning, ...); empty settings are the provider's defaults. */
    public ModelSettings modelSettings() {
        return modelSettings;
    }

    /** The loop the agent runs (see {@link AgentType#loop()}). */
    public AgentType agentType() {
        return agentType;
    }

    /** The core memory blocks the agent starts with. */
    public List<NewBlock> blocks() {
        return blocks;
    }

    /** The names of the tools the agent may call. */
    public List<String> tools() {
        return tools;
    }

    /** Policy: tool-name globs allowed (empty: all of {@link #tools}). */
    public List<String> allowTools() {
        return allowTools;
    }

    /** Policy: tool-name globs denied; deny wins. */
    public List<String> denyTools() {
        return denyTools;
    }

    /** When side-effecting calls ask for approval. */
    public ApprovalMode approvalMode() {
        return approvalMode;
    }

    /** The model's context window in tokens. */
    public int contextWindowTokens() {
        return contextWindowTokens;
    }

    /** The step cap: model calls per message received. */
    public int maxSteps() {
        return maxSteps;
    }

    /** The agent that spawned this one, for subagents. */
    public Optional<String> parentAgentId() {
        return parentAgentId;
    }

    /** Letta's tool rules: when which tool may be called (see {@link ToolRule}). */
    public List<ToolRule> toolRules() {
        return toolRules;
    }

    /** Labels for finding agents, e.g. from a Letta agent file. */
    public List<String> tags() {
        return tags;
    }

    /** Tools an agent file gave the agent without an implementation here (each named in {@link #tools}). */
    public List<DeclaredTool> declaredTools() {
        return declaredTools;
    }

    /** Blocks of other agents this agent is given when it is created. */
    public List<BlockAttachment> sharedBlocks() {
        return sharedBlocks;
    }

    /** The agent's sleep-time companion, if it has one. */
    public Optional<SleeptimeSettings> sleeptime() {
        return sleeptime;
    }

    /** For a companion agent: the agent whose memory its tools edit and whose blocks it sees. */
    public Optional<String> actsFor() {
        return actsFor;
    }

    /** The workspace, shell and web tools this agent has, wherever it runs. */
    public ToolAccess toolAccess() {
        return toolAccess;
    }

    /** What the agent is for, in a sentence, for people (Letta's {@code description}). */
    public Optional<String> description() {
        return description;
    }

    /** Whatever its creator keeps with the agent (Letta's {@code metadata}): a JSON object, {@code {}} when none. */
    public String metadata() {
        return metadata;
    }

    /** The agent's time zone (Letta's {@code timezone}); empty: the host's. */
    public Optional<ZoneId> timezone() {
        return timezone;
    }

    /** The most files the agent keeps open, as set for it (Letta's {@code max_files_open}); empty: see {@link #fileLimits}. */
    public Optional<Integer> maxFilesOpen() {
        return maxFilesOpen;
    }

    /**
     * The most characters of one open file its prompt shows, as set for it (Letta's
     * {@code per_file_view_window_char_limit}); empty: see {@link #fileLimits}.
     */
    public Optional<Integer> perFileViewWindowCharLimit() {
        return perFileViewWindowCharLimit;
    }

    /**
     * The file limits the agent works under: each one set for it, else Letta's default for its context window
     * ({@link FileLimits#forContextWindow}).
     */
    public FileLimits fileLimits() {
        FileLimits defaults = FileLimits.forContextWindow(contextWindowTokens);
        return new FileLimits(maxFilesOpen.orElse(defaults.maxFilesOpen()),
                perFileViewWindowCharLimit.orElse(defaults.viewWindowChars()));
    }

    /** The agent's scope in the memory store. */
    public dev.engram.memory.Scope scope() {
        return dev.engram.memory.Scope.of(userId, id);
    }

    /** The scope whose blocks the agent sees and its tools edit: its own, or (for a companion) its agent's. */
    public dev.engram.memory.Scope memoryScope() {
        return dev.engram.memory.Scope.of(userId, actsFor.orElse(id));
    }

    /** The tool policy from {@link #allowTools} and {@link #denyTools}. */
    public ToolPolicy policy() {
        ToolPolicy.Builder b = ToolPolicy.builder();
        if (!allowTools.isEmpty()) {
            b.allow(allowTools.toArray(String[]::new));
        }
        if (!denyTools.isEmpty()) {
            b.deny(denyTools.toArray(String[]::new));
        }
        return b.build();
    }

    /** A builder for an agent of {@code userId}. */
    public static Builder builder(String userId) {
        return new Builder(userId);
    }

    /** A builder starting from this definition, e.g. to import it under another id. */
    public Builder toBuilder() {
        return toBuilder(userId);
    }

    /** A builder starting from this definition, for another user (e.g. to import it for them). */
    public Builder toBuilder(String forUser) {
        Builder b = new Builder(forUser).id(id).name(name).systemPrompt(systemPrompt).model(model)
                .modelSettings(modelSettings).agentType(agentType)
                .tools(tools).approvalMode(approvalMode).contextWindowTokens(contextWindowTokens).maxSteps(maxSteps)
                .toolRules(toolRules).tags(tags).declaredTools(declaredTools).sharedBlocks(sharedBlocks);
        b.sleeptime = sleeptime.orElse(null);
        b.actsFor = actsFor.orElse(null);
        b.toolAccess = toolAccess;
        b.description = description.orElse(null);
        b.metadata = metadata;
        b.timezone = timezone.orElse(null);
        b.maxFilesOpen = maxFilesOpen.orElse(null);
        b.perFileViewWindowCharLimit = perFileViewWindowCharLimit.orElse(null);
        blocks.forEach(b::block);
        b.allowTools.addAll(allowTools);
        b.denyTools.addAll(denyTools);
        b.parentAgentId = parentAgentId.orElse(null);
        return b;
    }

    private List<Object> parts() {
        return Arrays.asList(id, userId, name, systemPrompt, model, modelSettings, agentType, blocks, tools, allowTools,
                denyTools, approvalMode, contextWindowTokens, maxSteps, parentAgentId, toolRules, tags, declaredTools,
                sharedBlocks, sleeptime, actsFor, toolAccess, description, metadata, timezone, maxFilesOpen,
                perFileViewWindowCharLimit);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AgentDefinition d && parts().equals(d.parts());
    }

    @Override
    public int hashCode() {
        return parts().hashCode();
    }

    @Override
    public String toString() {
        return "AgentDefinition[id=" + id + ", userId=" + userId + ", name=" + name + ", model=" + model + ", agentType="
                + agentType.lettaName() + ", tools=" + tools + "]";
    }

    private static String checkText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be null or blank");
        }
        return value;
    }

    static String checkId(String value, String what) {
        checkText(value, what);
        if (!value.matches("[A-Za-z0-9_-]{1,100}")) {
            throw new IllegalArgumentException(what + " '" + value
                    + "' may contain only letters, digits, '-' and '_' (at most 100 characters)");
        }
        return value;
    }

    /** Builds an {@link AgentDefinition}; {@link #model} is required, everything else has a default. */
    public static final class Builder {
        private final String userId;
        private String id;
        private String name;
        private String systemPrompt = DEFAULT_SYSTEM_PROMPT;
        private String model;
        private final List<NewBlock> blocks = new ArrayList<>();
        private List<String> tools = DEFAULT_TOOLS;
        private final List<String> allowTools = new ArrayList<>();
        private final List<String> denyTools = new ArrayList<>();
        private ApprovalMode approvalMode = ApprovalMode.AUTO;
        private int contextWindowTokens = DEFAULT_CONTEXT_WINDOW;
        private int maxSteps = DEFAULT_MAX_STEPS;
        private String parentAgentId;
        private List<ToolRule> toolRules = List.of();
        private List<String> tags = List.of();
        private List<DeclaredTool> declaredTools = List.of();
        private List<BlockAttachment> sharedBlocks = List.of();
        private SleeptimeSettings sleeptime;
        private String actsFor;
        private ToolAccess toolAccess = ToolAccess.NONE;
        private ModelSettings modelSettings = ModelSettings.PROVIDER_DEFAULTS;
        private AgentType agentType = DEFAULT_AGENT_TYPE;
        private String description;
        private String metadata = "{}";
        private ZoneId timezone;
        private Integer maxFilesOpen;
        private Integer perFileViewWindowCharLimit;

        private Builder(String userId) {
            this.userId = checkText(userId, "user id");
        }

        /** The agent's id; default: a random {@code agent-...} id. */
        public Builder id(String id) {
            this.id = checkId(id, "agent id");
            return this;
        }

        /** Default: the id. */
        public Builder name(String name) {
            this.name = checkText(name, "agent name");
            return this;
        }

        /** Default: {@link #DEFAULT_SYSTEM_PROMPT}. */
        public Builder systemPrompt(String prompt) {
            this.systemPrompt = Objects.requireNonNull(prompt, "system prompt must not be null");
            return this;
        }

        /** Required: a model spec such as {@code openai:gpt-4o-mini}, {@code anthropic:claude-sonnet-4-5} or {@code script:FILE}. */
        public Builder model(String spec) {
            this.model = checkText(spec, "model spec");
            return this;
        }

        public Builder block(NewBlock block) {
            blocks.add(Objects.requireNonNull(block, "block must not be null"));
            return this;
        }

        /** A read-write block with the default limit. */
        public Builder block(String label, String description, String value) {
            return block(NewBlock.builder(label).description(description).value(value).build());
        }

        /** Replaces the tool names; default {@link #DEFAULT_TOOLS}. */
        public Builder tools(List<String> names) {
            Objects.requireNonNull(names, "tool names must not be null");
            this.tools = List.copyOf(new LinkedHashSet<>(names));
            return this;
        }

        public Builder tools(String... names) {
            return tools(List.of(names));
        }

        /** Adds tool names to the current list. */
        public Builder addTools(String... names) {
            LinkedHashSet<String> all = new LinkedHashSet<>(tools);
            all.addAll(List.of(names));
            this.tools = List.copyOf(all);
            return this;
        }

        public Builder allowTools(String... globs) {
            allowTools.addAll(List.of(globs));
            return this;
        }

        public Builder denyTools(String... globs) {
            denyTools.addAll(List.of(globs));
            return this;
        }

        /** Default {@link ApprovalMode#AUTO}. */
        public Builder approvalMode(ApprovalMode mode) {
            this.approvalMode = Objects.requireNonNull(mode, "approval mode must not be null");
            return this;
        }

        /** Default {@link #DEFAULT_CONTEXT_WINDOW}; at least {@link #MIN_CONTEXT_WINDOW}. */
        public Builder contextWindowTokens(int tokens) {
            if (tokens < MIN_CONTEXT_WINDOW) {
                throw new IllegalArgumentException("context window must be at least " + MIN_CONTEXT_WINDOW
                        + " tokens, got " + tokens);
            }
            this.contextWindowTokens = tokens;
            return this;
        }

        /** Default {@link #DEFAULT_MAX_STEPS}; at least 1. */
        public Builder maxSteps(int steps) {
            if (steps < 1) {
                throw new IllegalArgumentException("step cap must be at least 1, got " + steps);
            }
            this.maxSteps = steps;
            return this;
        }

        /** Replaces the tool rules; default none. Every tool a rule names must be among the agent's tools. */
        public Builder toolRules(List<ToolRule> rules) {
            this.toolRules = List.copyOf(Objects.requireNonNull(rules, "tool rules must not be null"));
            return this;
        }

        /** Adds tool rules. */
        public Builder toolRules(ToolRule... rules) {
            List<ToolRule> all = new ArrayList<>(toolRules);
            all.addAll(List.of(rules));
            this.toolRules = List.copyOf(all);
            return this;
        }

        /** Replaces the tags; default none. */
        public Builder tags(List<String> tags) {
            this.tags = List.copyOf(Objects.requireNonNull(tags, "tags must not be null"));
            return this;
        }

        /**
         * Replaces the declared tools (see {@link DeclaredTool}); default none. Each must also be named in
         * {@link #tools}.
         */
        public Builder declaredTools(List<DeclaredTool> tools) {
            this.declaredTools = List.copyOf(Objects.requireNonNull(tools, "declared tools must not be null"));
            return this;
        }

        /** Replaces the blocks of other agents this agent is given when it is created; default none. */
        public Builder sharedBlocks(List<BlockAttachment> attachments) {
            this.sharedBlocks = List.copyOf(Objects.requireNonNull(attachments, "shared blocks must not be null"));
            return this;
        }

        /** Gives the agent block {@code label} of agent {@code ownerAgentId}, with {@code permission}. */
        public Builder sharedBlock(String ownerAgentId, String label, dev.engram.memory.MemoryPermission permission) {
            List<BlockAttachment> all = new ArrayList<>(sharedBlocks);
            all.add(new BlockAttachment(ownerAgentId, label, permission));
            this.sharedBlocks = List.copyOf(all);
            return this;
        }

        /** Gives the agent a sleep-time companion (see {@link SleeptimeSettings}); default none. */
        public Builder sleeptime(SleeptimeSettings settings) {
            this.sleeptime = Objects.requireNonNull(settings, "sleep-time settings must not be null");
            return this;
        }

        /** Takes the agent's sleep-time companion away (its companion agent and memory stay in the store). */
        public Builder noSleeptime() {
            this.sleeptime = null;
            return this;
        }

        /**
         * Gives the agent workspace, shell or web tools of its own (see {@link ToolAccess}), persisted with
         * it; their names are added to its tools.
         */
        public Builder toolAccess(ToolAccess access) {
            this.toolAccess = Objects.requireNonNull(access, "tool access must not be null");
            return addTools(access.toolNames().toArray(String[]::new));
        }

        /** How the model generates; default {@link ModelSettings#PROVIDER_DEFAULTS}. */
        public Builder modelSettings(ModelSettings settings) {
            this.modelSettings = Objects.requireNonNull(settings, "model settings must not be null");
            return this;
        }

        /** The loop the agent runs; default {@link AgentDefinition#DEFAULT_AGENT_TYPE}. */
        public Builder agentType(AgentType type) {
            this.agentType = Objects.requireNonNull(type, "agent type must not be null");
            return this;
        }

        /** What the agent is for, for people; default none. */
        public Builder description(String text) {
            this.description = Objects.requireNonNull(text, "description must not be null");
            return this;
        }

        /** Takes the description away. */
        public Builder noDescription() {
            this.description = null;
            return this;
        }

        /**
         * Replaces the metadata kept with the agent, a JSON object; default {@code {}}.
         *
         * @throws IllegalArgumentException if it is not a JSON object
         */
        public Builder metadata(String jsonObject) {
            Objects.requireNonNull(jsonObject, "metadata must not be null");
            JsonNode node;
            try {
                node = Heartbeats.JSON.readTree(jsonObject);
            } catch (JacksonException e) {
                throw new IllegalArgumentException("metadata is not JSON: " + e.getOriginalMessage());
            }
            if (!node.isObject()) {
                throw new IllegalArgumentException("metadata must be a JSON object, got " + jsonObject);
            }
            this.metadata = node.toString();
            return this;
        }

        /** The agent's time zone; default none (the host's). */
        public Builder timezone(ZoneId zone) {
            this.timezone = Objects.requireNonNull(zone, "time zone must not be null");
            return this;
        }

        /** Takes the time zone away (the host's is used). */
        public Builder noTimezone() {
            this.timezone = null;
            return this;
        }

        /**
         * The most files the agent keeps open at once (Letta's {@code max_files_open}); default: Letta's for the
         * context window.
         *
         * @throws IllegalArgumentException if not between 1 and {@link FileLimits#MAX_FILES_OPEN}
         */
        public Builder maxFilesOpen(int files) {
            new FileLimits(files, 1); // checks the bounds, with the field's name
            this.maxFilesOpen = files;
            return this;
        }

        /**
         * The most characters of one open file the prompt shows (Letta's {@code per_file_view_window_char_limit});
         * default: Letta's for the context window.
         *
         * @throws IllegalArgumentException if not between 1 and {@link FileLimits#MAX_VIEW_WINDOW_CHARS}
         */
        public Builder perFileViewWindowCharLimit(int chars) {
            new FileLimits(1, chars);
            this.perFileViewWindowCharLimit = chars;
            return this;
        }

        Builder actsFor(String agentId) {
            this.actsFor = agentId;
            return this;
        }

        Builder parentAgentId(String parent) {
            this.parentAgentId = parent;
            return this;
        }

        /** @throws IllegalArgumentException if no model was set, or the settings contradict each other */
        public AgentDefinition build() {
            if (model == null) {
                throw new IllegalArgumentException("an agent needs a model: call model(\"openai:gpt-4o-mini\"), "
                        + "model(\"anthropic:claude-sonnet-4-5\"), model(\"ollama:llama3.2\") or model(\"script:FILE\")");
            }
            if (systemPrompt.equals(DEFAULT_SYSTEM_PROMPT) || systemPrompt.equals(DEFAULT_V1_SYSTEM_PROMPT)) {
                // The default instructions describe the loop: heartbeats and send_message only where they are used.
                systemPrompt = agentType.loop() == AgentType.Loop.UNTIL_REPLY ? DEFAULT_V1_SYSTEM_PROMPT : DEFAULT_SYSTEM_PROMPT;
            }
            return new AgentDefinition(this, id != null ? id : "agent-" + UUID.randomUUID().toString().substring(0, 8));
        }
    }
}

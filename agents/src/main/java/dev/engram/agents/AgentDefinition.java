package dev.engram.agents;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolPolicy;
import dev.engram.memory.NewBlock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * What an agent is: who owns it, how it thinks (system prompt, model), what it starts out remembering
 * (its blocks), what it may do (tools, policy, approval) and its limits (context window, step cap).
 * {@link AgentRuntime#create} persists it; the blocks are created in the store then and live there
 * afterwards, edited by the agent.
 *
 * @param id                  unique per user; letters, digits, {@code -} and {@code _}
 * @param userId              the user the agent serves
 * @param name                unique per user, for people
 * @param systemPrompt        the agent's instructions, first in every prompt
 * @param model               a model spec as {@code ChatModel.of} reads it, e.g. {@code openai:gpt-4o-mini}
 * @param blocks              the core memory blocks the agent starts with
 * @param tools               the names of the tools the agent may call
 * @param allowTools          policy: tool-name globs allowed (empty: all of {@code tools})
 * @param denyTools           policy: tool-name globs denied; deny wins
 * @param approvalMode        when side-effecting calls ask for approval
 * @param contextWindowTokens the model's context window in tokens
 * @param maxSteps            the step cap: model calls per message received
 * @param parentAgentId       the agent that spawned this one, for subagents
 * @param toolRules           Letta's tool rules: when which tool may be called (see {@link ToolRule})
 * @param tags                labels for finding agents, e.g. from a Letta agent file
 * @param declaredTools       tools the agent file gave the agent without an implementation here (each named in {@code tools})
 * @param sharedBlocks        blocks of other agents this agent is given when it is created
 * @param sleeptime           the agent's sleep-time companion, if it has one
 * @param actsFor             for a companion agent: the agent whose memory its tools edit and whose blocks it sees
 * @param toolAccess          the workspace, shell and web tools this agent has, wherever it runs
 */
public record AgentDefinition(String id, String userId, String name, String systemPrompt, String model,
        List<NewBlock> blocks, List<String> tools, List<String> allowTools, List<String> denyTools,
        ApprovalMode approvalMode, int contextWindowTokens, int maxSteps, Optional<String> parentAgentId,
        List<ToolRule> toolRules, List<String> tags, List<DeclaredTool> declaredTools, List<BlockAttachment> sharedBlocks,
        Optional<SleeptimeSettings> sleeptime, Optional<String> actsFor, ToolAccess toolAccess) {

    /** The instructions an agent gets when none are given. */
    public static final String DEFAULT_SYSTEM_PROMPT = """
            You are a helpful assistant with a persistent memory that outlives this conversation.
            Your core memory blocks are shown below and are always in your prompt; keep them current with the \
            block tool (append what you learn about the user in "human", about yourself in "persona").
            Older messages leave your context window but stay in recall memory: find them with search or recall. \
            File long-term facts and documents in archival memory with recall, and per-user notes with memory_save.
            The user only sees what you send with send_message, which also ends your turn. \
            Set request_heartbeat to true on a tool call when you need to continue after it returns.""";

    /** The tools an agent gets when none are named. */
    public static final List<String> DEFAULT_TOOLS = List.of("send_message", "block", "recall", "search",
            "memory_search", "memory_save", "memory_update", "memory_delete");

    /** 32,768 tokens. */
    public static final int DEFAULT_CONTEXT_WINDOW = 32_768;

    /** 10 model calls per message. */
    public static final int DEFAULT_MAX_STEPS = 10;

    /** The smallest context window accepted: room for a system prompt, blocks and a few messages. */
    public static final int MIN_CONTEXT_WINDOW = 1_024;

    public AgentDefinition {
        id = checkId(id, "agent id");
        userId = checkText(userId, "user id");
        name = checkText(name, "agent name");
        Objects.requireNonNull(systemPrompt, "system prompt must not be null");
        model = checkText(model, "model spec");
        blocks = List.copyOf(Objects.requireNonNull(blocks, "blocks must not be null"));
        tools = List.copyOf(Objects.requireNonNull(tools, "tools must not be null"));
        allowTools = List.copyOf(Objects.requireNonNull(allowTools, "allowTools must not be null"));
        denyTools = List.copyOf(Objects.requireNonNull(denyTools, "denyTools must not be null"));
        Objects.requireNonNull(approvalMode, "approval mode must not be null");
        Objects.requireNonNull(parentAgentId, "parentAgentId must not be null");
        if (contextWindowTokens < MIN_CONTEXT_WINDOW) {
            throw new IllegalArgumentException("context window must be at least " + MIN_CONTEXT_WINDOW
                    + " tokens, got " + contextWindowTokens);
        }
        if (maxSteps < 1) {
            throw new IllegalArgumentException("step cap must be at least 1, got " + maxSteps);
        }
        toolRules = List.copyOf(Objects.requireNonNull(toolRules, "toolRules must not be null"));
        tags = List.copyOf(Objects.requireNonNull(tags, "tags must not be null"));
        declaredTools = List.copyOf(Objects.requireNonNull(declaredTools, "declaredTools must not be null"));
        sharedBlocks = List.copyOf(Objects.requireNonNull(sharedBlocks, "sharedBlocks must not be null"));
        Objects.requireNonNull(sleeptime, "sleeptime must not be null");
        Objects.requireNonNull(actsFor, "actsFor must not be null");
        Objects.requireNonNull(toolAccess, "toolAccess must not be null");
        DefinitionChecks.check(id, name, blocks, tools, toolRules, declaredTools, sharedBlocks);
        ContextWindows.check(name, model, contextWindowTokens);
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
                .tools(tools).approvalMode(approvalMode).contextWindowTokens(contextWindowTokens).maxSteps(maxSteps)
                .toolRules(toolRules).tags(tags).declaredTools(declaredTools).sharedBlocks(sharedBlocks);
        b.sleeptime = sleeptime.orElse(null);
        b.actsFor = actsFor.orElse(null);
        b.toolAccess = toolAccess;
        blocks.forEach(b::block);
        b.allowTools.addAll(allowTools);
        b.denyTools.addAll(denyTools);
        b.parentAgentId = parentAgentId.orElse(null);
        return b;
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
            String agentId = id != null ? id : "agent-" + UUID.randomUUID().toString().substring(0, 8);
            return new AgentDefinition(agentId, userId, name != null ? name : agentId, systemPrompt, model, blocks,
                    tools, allowTools, denyTools, approvalMode, contextWindowTokens, maxSteps,
                    Optional.ofNullable(parentAgentId), toolRules, tags, declaredTools, sharedBlocks, Optional.ofNullable(sleeptime),
                    Optional.ofNullable(actsFor), toolAccess);
        }
    }
}

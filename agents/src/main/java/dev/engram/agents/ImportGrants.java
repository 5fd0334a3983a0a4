package dev.engram.agents;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ModelPolicy;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.NewBlock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What an imported agent file may ask for: it may tighten the importer's defaults, never loosen them. A file's
 * models must be ones the operator allows ({@link ModelPolicy}; a refusal stores nothing); its other grants are
 * dropped and listed ({@link DroppedGrant}): an approval mode looser than {@link ApprovalMode#AUTO}, a step cap
 * above the runtime's, a workspace, shell or web access of its own, acting for or descending from another agent,
 * blocks of agents outside the file, an owner other than the importer, a block permission above read-write.
 * Allow and deny lists and approval rules only ever narrow what an agent may do, and are kept.
 */
final class ImportGrants {
    private final ModelPolicy models;
    private final int maxSteps;
    private final Set<String> runtimeTools;

    ImportGrants(ModelPolicy models, int maxSteps, Set<String> runtimeTools) {
        this.models = models;
        this.maxSteps = maxSteps;
        this.runtimeTools = Set.copyOf(runtimeTools);
    }

    /** Why the file's model in {@code field} may not be used, as a problem for an {@link AgentException}; empty when it may. */
    Optional<String> modelRefusal(String spec) {
        return models.refusal(spec).map(r -> "is not a model an agent file may choose: " + r
                + "; or import it with a model of your choice (--model SPEC)");
    }

    /**
     * The definition with everything the file asked beyond the importer's defaults taken away, each listed in
     * {@code dropped}; {@code prefix} is where the file holds the definition's fields, e.g. {@code agent.}, and
     * {@code fileAgents} the ids of the agents the same file creates, whose blocks an agent may be given.
     */
    AgentDefinition limit(AgentDefinition d, String prefix, Set<String> fileAgents, List<DroppedGrant> dropped) {
        AgentDefinition.Builder b = d.toBuilder();
        String name = d.name();
        if (d.approvalMode() == ApprovalMode.YOLO) {
            b.approvalMode(ApprovalMode.AUTO);
            dropped.add(new DroppedGrant(name, prefix + "approval_mode", "yolo", "the agent runs in auto: side-effecting "
                    + "calls ask for approval; an agent file may ask for more approval (ask), never for less"));
        }
        if (d.maxSteps() > maxSteps) {
            b.maxSteps(maxSteps);
            dropped.add(new DroppedGrant(name, prefix + "max_steps", Integer.toString(d.maxSteps()), "the step cap is "
                    + maxSteps + ", the most this runtime gives an imported agent"));
        }
        d.sleeptime().filter(st -> st.maxSteps() > maxSteps).ifPresent(st -> {
            b.sleeptime(new SleeptimeSettings(st.everyMessages(), st.idleAfter(), st.model(), maxSteps));
            dropped.add(new DroppedGrant(name, prefix + "sleeptime.max_steps", Integer.toString(st.maxSteps()),
                    "the sleep-time companion's step cap is " + maxSteps + ", the most this runtime gives an imported agent"));
        });
        if (!d.toolAccess().isNone()) {
            List<String> tools = new ArrayList<>(d.tools());
            d.toolAccess().toolNames().stream().filter(t -> !runtimeTools.contains(t)).forEach(tools::remove);
            b.toolAccess(ToolAccess.NONE).tools(tools).toolRules(d.toolRules().stream()
                    .filter(r -> tools.contains(r.tool())).toList());
            dropped.add(new DroppedGrant(name, prefix + "tool_access", describe(d.toolAccess()), "the agent has only "
                    + "the workspace, shell and web tools this runtime gives every agent; give it its own with "
                    + "AgentRuntime.changeToolAccess (engram agent create --workspace) after checking them"));
        }
        d.actsFor().ifPresent(a -> {
            b.actsFor(null);
            dropped.add(new DroppedGrant(name, prefix + "acts_for", a, "an imported agent edits only its own memory"));
        });
        d.parentAgentId().ifPresent(p -> {
            b.parentAgentId(null);
            dropped.add(new DroppedGrant(name, prefix + "parent_agent_id", p, "an imported agent is nobody's subagent"));
        });
        List<BlockAttachment> outside = d.sharedBlocks().stream().filter(a -> !fileAgents.contains(a.ownerAgentId())).toList();
        if (!outside.isEmpty()) {
            dropped.add(new DroppedGrant(name, prefix + "shared_blocks", outside.stream()
                    .map(a -> a.ownerAgentId() + "/" + a.label()).toList().toString(),
                    "an imported agent is not given blocks of agents outside its file"));
        }
        List<BlockAttachment> kept = new ArrayList<>();
        for (BlockAttachment a : d.sharedBlocks()) {
            if (outside.contains(a)) {
                continue;
            }
            if (a.permission().compareTo(MemoryPermission.READ_WRITE) > 0) {
                dropped.add(new DroppedGrant(name, prefix + "shared_blocks", a.permission().name().toLowerCase(Locale.ROOT),
                        "block '" + a.label() + "' of agent '" + a.ownerAgentId() + "' is given read_write: an agent file "
                                + "gives no more than that"));
                a = new BlockAttachment(a.ownerAgentId(), a.label(), MemoryPermission.READ_WRITE);
            }
            kept.add(a);
        }
        b.sharedBlocks(kept);
        return b.build();
    }

    /** The block, read-write at most: an agent file does not give an agent the right to delete its blocks. */
    NewBlock limit(NewBlock block, String agent, String field, List<DroppedGrant> dropped) {
        if (block.permission().compareTo(MemoryPermission.READ_WRITE) <= 0) {
            return block;
        }
        dropped.add(new DroppedGrant(agent, field, block.permission().name().toLowerCase(Locale.ROOT),
                "block '" + block.label() + "' is read_write: an agent file gives no more than that"));
        return NewBlock.builder(block.label()).description(block.description()).value(block.value()).limit(block.limit())
                .type(block.type()).permission(MemoryPermission.READ_WRITE).pinned(block.pinned()).build();
    }

    private static String describe(ToolAccess access) {
        List<String> parts = new ArrayList<>();
        access.workspace().ifPresent(w -> parts.add("workspace " + w));
        if (!access.shell().isEmpty()) {
            parts.add("shell " + access.shell());
        }
        if (access.web()) {
            parts.add("web");
        }
        return String.join(", ", parts);
    }
}

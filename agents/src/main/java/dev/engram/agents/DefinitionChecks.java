package dev.engram.agents;

import dev.engram.memory.NewBlock;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The rules an {@link AgentDefinition}'s parts must keep with each other; each broken one is an {@link IllegalArgumentException}. */
final class DefinitionChecks {
    private DefinitionChecks() {
    }

    static void check(String id, String name, List<NewBlock> blocks, List<String> tools, List<ToolRule> rules,
            List<DeclaredTool> declaredTools, List<BlockAttachment> sharedBlocks) {
        Set<String> labels = new HashSet<>();
        for (NewBlock b : blocks) {
            if (!labels.add(b.label())) {
                throw new IllegalArgumentException("agent '" + name + "' has two blocks labelled '" + b.label()
                        + "'; labels must be unique");
            }
        }
        for (BlockAttachment a : sharedBlocks) {
            if (!labels.add(a.label())) {
                throw new IllegalArgumentException("agent '" + name + "' would have two blocks labelled '" + a.label() + "'");
            }
            if (a.ownerAgentId().equals(id)) {
                throw new IllegalArgumentException("agent '" + name + "' cannot be given its own block '" + a.label() + "'");
            }
        }
        if (new HashSet<>(tools).size() != tools.size()) {
            throw new IllegalArgumentException("agent '" + name + "' names a tool twice: " + tools);
        }
        checkRules(name, tools, rules);
        Set<String> declared = new HashSet<>();
        for (DeclaredTool t : declaredTools) {
            if (!declared.add(t.name()) || !tools.contains(t.name())) {
                throw new IllegalArgumentException("agent '" + name + "' declares tool '" + t.name() + "' "
                        + (tools.contains(t.name()) ? "twice" : "without naming it among its tools"));
            }
        }
    }

    /** Every tool a rule names must be one of the agent's tools. */
    private static void checkRules(String name, List<String> tools, List<ToolRule> rules) {
        for (ToolRule rule : rules) {
            Set<String> named = new LinkedHashSet<>();
            named.add(rule.tool());
            switch (rule) {
                case ToolRule.Child c -> named.addAll(c.children());
                case ToolRule.Parent p -> named.addAll(p.children());
                case ToolRule.Conditional c -> {
                    named.addAll(c.childOutputMapping().values());
                    c.defaultChild().ifPresent(named::add);
                }
                default -> {
                }
            }
            named.removeAll(tools);
            if (!named.isEmpty()) {
                throw new IllegalArgumentException("agent '" + name + "' has a " + rule.type() + " rule about " + named
                        + ", which are not among its tools " + tools);
            }
        }
    }
}

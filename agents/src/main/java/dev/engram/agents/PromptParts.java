package dev.engram.agents;

import dev.engram.memory.Block;
import java.util.List;

/**
 * The parts of an agent's system prompt that rarely change from step to step, rendered and counted once and reused
 * while what they are rendered from is the same: the instructions (of one {@link AgentDefinition}, which is replaced
 * whole when it changes) and the memory blocks (the blocks as read at this step: any change to one, by a tool, the API
 * or another process sharing the storage, gives a different list, and the part is rendered again). Thread-safe: a
 * part is replaced whole.
 */
final class PromptParts {
    /** A rendered part and its size in tokens. */
    record Part(String text, int tokens) {
    }

    private record Cached<K>(K key, Part part) {
    }

    private final PromptTokens tokens;
    private volatile Cached<AgentDefinition> instructions;
    private volatile Cached<List<Block>> blocks;

    PromptParts(PromptTokens tokens) {
        this.tokens = tokens;
    }

    /** The definition's instructions: its system prompt and what its tool rules say, rendered once per definition. */
    Part instructions(AgentDefinition definition) {
        Cached<AgentDefinition> c = instructions;
        if (c == null || c.key() != definition) {
            String text = definition.systemPrompt().strip() + "\n\n" + ToolRuleSolver.describe(definition.toolRules());
            c = new Cached<>(definition, new Part(text, tokens.count(text)));
            instructions = c;
        }
        return c.part();
    }

    /** The blocks as the prompt shows them, rendered again only when a block differs from the last ones rendered. */
    Part blocks(List<Block> read, String agentId) {
        Cached<List<Block>> c = blocks;
        if (c == null || !c.key().equals(read)) {
            StringBuilder text = new StringBuilder(4096);
            Prompts.renderBlocks(text, read, agentId);
            String rendered = text.toString();
            c = new Cached<>(List.copyOf(read), new Part(rendered, tokens.count(rendered)));
            blocks = c;
        }
        return c.part();
    }
}

package dev.engram.agents;

import dev.engram.memory.Archive;
import dev.engram.memory.Block;
import dev.engram.memory.ChangeEvent;
import dev.engram.memory.Folder;
import dev.engram.memory.Scope;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The parts of an agent's system prompt that rarely change from step to step, rendered and counted once and reused
 * while what they are rendered from is the same: the instructions (of one {@link AgentDefinition}, which is replaced
 * whole when it changes) and the memory blocks (the blocks as read at this step: any change to one, by a tool, the API
 * or another process sharing the storage, gives a different list, and the part is rendered again). Thread-safe: a
 * part is replaced whole.
 *
 * <p>The blocks and the attached archives themselves are kept too, not read at every step, while the change log shows
 * nothing that could change them ({@link #seen}): any {@code BLOCK} event of the user (a block of the agent, of another
 * agent that shares it, a share given or ended), any {@code ARCHIVAL} event of the agent (an archive attached,
 * detached, renamed or deleted, a folder attached or detached, or an entry of its own). That no folder is attached is
 * kept the same way; attached folders are read at every step. The agent's context read ({@link InContextMessages}) hands each
 * stretch of the change log it reads (every event of the agent's user since the last: all that this looks at) to {@link #seen}, and a stretch it skipped as unknown drops both. What another
 * process or the API wrote is therefore shown from the next step whose context read follows the write, as the context's
 * own messages are.
 */
final class PromptParts {
    /** A rendered part and its size in tokens. */
    record Part(String text, int tokens) {
    }

    private record Cached<K>(K key, Part part) {
    }

    /** A value read from the store, for a scope, while the count of changes seen to it was {@code generation}. */
    private record Kept<T>(Scope scope, long generation, T value) {
    }

    private final PromptTokens tokens;
    private volatile Cached<AgentDefinition> instructions;
    private volatile Cached<List<Block>> blocks;
    private final AtomicLong blockChanges = new AtomicLong();
    private final AtomicLong archiveChanges = new AtomicLong();
    private volatile Kept<List<Block>> storedBlocks;
    private volatile Kept<List<Archive>> storedArchives;
    private volatile Kept<List<Folder>> storedFolders;

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

    /**
     * Takes in a stretch of the change log read after the last one (every event since, in order), or {@code null} when
     * events were skipped unread: what it shows could have changed is read again at the next step.
     */
    void seen(List<ChangeEvent> events, Scope memory) {
        if (events == null) {
            blockChanges.incrementAndGet();
            archiveChanges.incrementAndGet();
            return;
        }
        boolean blocksChanged = false;
        boolean archivesChanged = false;
        for (ChangeEvent e : events) {
            if (!e.userId().equals(memory.userId())) {
                continue;
            }
            if (e.entity() == ChangeEvent.Entity.BLOCK) {
                blocksChanged = true;
            } else if (e.entity() == ChangeEvent.Entity.ARCHIVAL && e.agentId().filter(memory.agentId()::equals).isPresent()) {
                archivesChanged = true;
            }
        }
        if (blocksChanged) {
            blockChanges.incrementAndGet();
        }
        if (archivesChanged) {
            archiveChanges.incrementAndGet();
        }
    }

    /** The blocks of {@code memory} as kept, or as {@code read} now when a change to them was seen since. */
    List<Block> storedBlocks(Scope memory, Supplier<List<Block>> read) {
        Kept<List<Block>> k = storedBlocks;
        long seen = blockChanges.get();
        if (k != null && k.generation() == seen && k.scope().equals(memory)) {
            return k.value();
        }
        List<Block> now = List.copyOf(read.get());
        if (blockChanges.get() == seen) { // no change seen while it was read: it holds until the next one
            storedBlocks = new Kept<>(memory, seen, now);
        }
        return now;
    }

    /**
     * The folders attached to {@code memory}'s agent: none, as kept, while no attachment was seen since; otherwise as
     * {@code read} now. Only an empty list is kept (what attached folders show, their files' state, changes by writes
     * the change log does not name).
     */
    List<Folder> storedFolders(Scope memory, Supplier<List<Folder>> read) {
        Kept<List<Folder>> k = storedFolders;
        long seen = archiveChanges.get();
        if (k != null && k.generation() == seen && k.scope().equals(memory)) {
            return k.value();
        }
        List<Folder> now = List.copyOf(read.get());
        storedFolders = now.isEmpty() && archiveChanges.get() == seen ? new Kept<>(memory, seen, now) : null;
        return now;
    }

    /** The archives attached to {@code memory}'s agent as kept, or as {@code read} now when a change was seen since. */
    List<Archive> storedArchives(Scope memory, Supplier<List<Archive>> read) {
        Kept<List<Archive>> k = storedArchives;
        long seen = archiveChanges.get();
        if (k != null && k.generation() == seen && k.scope().equals(memory)) {
            return k.value();
        }
        List<Archive> now = List.copyOf(read.get());
        if (archiveChanges.get() == seen) {
            storedArchives = new Kept<>(memory, seen, now);
        }
        return now;
    }
}

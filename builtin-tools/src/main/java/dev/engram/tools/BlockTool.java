package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolOutput;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.Truncation;
import dev.engram.framework.ToolException;
import dev.engram.memory.Acl;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.BlockStore;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code block}: the agent's core memory blocks: append, replace, create, rewrite, delete, rename,
 * archive, load, swap, view, list. Every write is decided by {@link Acl#decide} on the block's
 * permission for this agent ({@link BlockAccess}); partner and human blocks need consent from the
 * {@link PermissionBroker}. A block the agent creates is its own, with permission admin.
 *
 * <p>Paging between core and archival memory (the table is in this module's README):
 * <ul>
 *   <li>{@code archive} takes the block out of the prompt without losing its text, so it needs what
 *       rewriting the block needs ({@code overwrite}: read_write and admin; partner and human with
 *       consent). Its text goes to the archival entry of the same label: creating that entry needs
 *       {@code append} on the agent's archival memory, replacing an existing one needs {@code overwrite}.</li>
 *   <li>{@code load} copies an entry into a new working block; the entry stays, unchanged, so it needs
 *       nothing beyond reading.</li>
 *   <li>{@code swap} is an archive and a load in one transaction, with the archive's requirements.</li>
 * </ul>
 */
final class BlockTool implements AiTool<BlockTool.Op, ToolOutput> {
    static final String NAME = "block";
    private static final ToolInfo INFO = new ToolInfo(NAME,
            "Edit your core memory blocks, the labelled notes shown in every prompt (such as \"human\" about the "
                + "user and \"persona\" about yourself). Use append to add a new fact, replace to correct or remove "
                + "text (old_text must match exactly once), rewrite to reorganise a whole block, create, rename and delete "
                + "for blocks of your own, archive to move a block you no longer need into archival "
                + "memory, load to bring a copy of an archival entry in as a working block, swap to do both at once, view and "
                + "list to read. Returns what changed and the block's new size against its character limit.",
            SafetyTier.SIDE_EFFECTING, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);
    /**
     * Reads and writes the memory store only: cheap and trusted, so it runs on the caller's thread, unless its consent
     * broker may wait for a person (a write to a partner or human block then waits for an answer that the caller's
     * open transaction must not hold up).
     */
    @Override
    public boolean runsInline() {
        return inline;
    }

    static final String LABEL = "Label of the block, e.g. \"human\" (for load: the label of the archival entry).";

    @JsonClassDescription("Memory block operations.")
    sealed interface Op permits Append, Replace, Create, Rewrite, Delete, Rename, Archive, Load, Swap, View, ListBlocks {
    }

    @JsonClassDescription("add text at the end of a block, on a new line")
    record Append(@JsonPropertyDescription(LABEL) String label,
            @JsonPropertyDescription("Text to add.") String text) implements Op {
    }

    @JsonClassDescription("replace an exact piece of a block's text")
    record Replace(@JsonPropertyDescription(LABEL) String label,
            @JsonPropertyDescription("The exact text to replace; it must occur exactly once in the block.") String oldText,
            @JsonPropertyDescription("The new text; empty to delete old_text.") String newText) implements Op {
    }

    @JsonClassDescription("create a new block of your own (you may later rewrite, rename and delete it)")
    record Create(@JsonPropertyDescription("Label of the new block.") String label,
            @JsonPropertyDescription("Its text; default empty.") Optional<String> value,
            @JsonPropertyDescription("What the block is for, shown with it.") Optional<String> description,
            @JsonPropertyDescription("Its character limit; default 5000.") Optional<Integer> limit) implements Op {
    }

    @JsonClassDescription("rewrite a block's whole text, e.g. to reorganise it")
    record Rewrite(@JsonPropertyDescription(LABEL) String label,
            @JsonPropertyDescription("The block's new text, replacing all of it.") String value) implements Op {
    }

    @JsonClassDescription("delete a block and its text (archive it instead to keep the text)")
    record Delete(@JsonPropertyDescription(LABEL) String label) implements Op {
    }

    @JsonClassDescription("give one of your own blocks a new label")
    record Rename(@JsonPropertyDescription(LABEL) String label,
            @JsonPropertyDescription("The new label.") String newLabel) implements Op {
    }

    @JsonClassDescription("move a block into archival memory, freeing its place in the prompt")
    record Archive(@JsonPropertyDescription(LABEL) String label) implements Op {
    }

    @JsonClassDescription("bring a copy of an archival entry into working memory as a block; the entry stays")
    record Load(@JsonPropertyDescription(LABEL) String label,
            @JsonPropertyDescription("Label of the new block if it should differ from the entry's.")
            Optional<String> asLabel) implements Op {
    }

    @JsonClassDescription("archive one block and load an archival entry in its place, at once")
    record Swap(@JsonPropertyDescription("Label of the block to archive.") String archiveLabel,
            @JsonPropertyDescription("Label of the archival entry to load.") String loadLabel) implements Op {
    }

    @JsonClassDescription("show one block with its size, limit and permission")
    record View(@JsonPropertyDescription(LABEL) String label) implements Op {
    }

    @com.fasterxml.jackson.annotation.JsonTypeName("list")
    @JsonClassDescription("list all blocks with their sizes")
    record ListBlocks() implements Op {
    }

    private final MemoryStore store;
    private final BlockAccess access;
    private final int loadLimit;
    private final MemoryPermission archivalPermission;
    private final boolean inline;

    BlockTool(MemoryStore store, PermissionBroker broker, Duration consentTimeout, int loadLimit,
            MemoryPermission archivalPermission) {
        this.store = store;
        this.access = new BlockAccess(store, broker, consentTimeout);
        this.loadLimit = loadLimit;
        this.archivalPermission = archivalPermission;
        this.inline = broker.answersAtOnce();
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Op> inputType() {
        return Op.class;
    }

    /** Every operation but {@code view} and {@code list} edits memory, and says so ({@link ToolEffect#MEMORY_EDITED}). */
    @Override
    public ToolOutput execute(Op op, ToolContext ctx) throws Exception {
        Scope scope = ToolScopes.of(ctx);
        try {
            return switch (op) {
                case Append a -> edited(append(scope, a, ctx));
                case Replace r -> edited(replace(scope, r, ctx));
                case Create c -> edited(create(scope, c, ctx));
                case Rewrite r -> edited(rewrite(scope, r, ctx));
                case Delete d -> edited(delete(scope, d, ctx));
                case Rename r -> edited(rename(scope, r, ctx));
                case Archive a -> edited(archive(scope, a, ctx));
                case Load l -> edited(load(scope, l));
                case Swap s -> edited(swap(scope, s, ctx));
                case View v -> ToolOutput.of(view(access.require(scope, v.label())));
                case ListBlocks l -> ToolOutput.of(list(scope));
            };
        } catch (MemoryException | IllegalArgumentException e) {
            // Limits, versions, missing items and invalid text: the store's sentence is for the model too.
            throw new ToolException(e.getMessage());
        }
    }

    private static ToolOutput edited(String text) {
        return ToolOutput.of(text, ToolEffect.MEMORY_EDITED);
    }

    private String append(Scope scope, Append a, ToolContext ctx) {
        Block after = access.append(scope, a.label(), a.text(), ctx);
        return "Appended to block '" + a.label() + "'; it now holds " + BlockAccess.size(after) + ".";
    }

    private String replace(Scope scope, Replace r, ToolContext ctx) {
        Block after = access.replaceOnce(scope, r.label(), r.oldText(), r.newText(), "old_text", ctx);
        return "Replaced text in block '" + r.label() + "'; it now holds " + BlockAccess.size(after) + ".";
    }

    private String create(Scope scope, Create c, ToolContext ctx) {
        Block created = access.create(scope, c.label(), c.value().orElse(""), c.description().orElse(""),
                c.limit().orElse(NewBlock.DEFAULT_LIMIT), ctx);
        return "Created block '" + c.label() + "' (" + BlockAccess.size(created) + ", permission admin: you may rewrite, rename and "
                + "delete it).";
    }

    private String rewrite(Scope scope, Rewrite r, ToolContext ctx) {
        Block after = access.rewrite(scope, r.label(), r.value(), ctx);
        return "Rewrote block '" + r.label() + "'; it now holds " + BlockAccess.size(after) + ".";
    }

    private String delete(Scope scope, Delete d, ToolContext ctx) {
        access.delete(scope, d.label(), ctx);
        return "Deleted block '" + d.label() + "'; its text is gone from your prompt (archive instead to keep it).";
    }

    private String rename(Scope scope, Rename r, ToolContext ctx) {
        Block after = access.rename(scope, r.label(), r.newLabel(), ctx);
        return "Renamed block '" + r.label() + "' to '" + after.label() + "'.";
    }


    private String archive(Scope scope, Archive a, ToolContext ctx) {
        Block block = access.require(scope, a.label());
        authoriseArchive(scope, block, ctx);
        ArchivalEntry entry = store.blocks().archive(scope, a.label(), false);
        return "Archived block '" + a.label() + "' (" + block.size() + " characters) into archival memory as entry '"
                + a.label() + "' (" + entry.id() + "); it is no longer in your prompt. Load it back with operation load.";
    }

    /**
     * Archiving rewrites the block out of the prompt (overwrite on the block) and creates the archival
     * entry of its label (append on archival memory) or replaces it (overwrite on archival memory).
     */
    private void authoriseArchive(Scope scope, Block block, ToolContext ctx) {
        if (block.isShared(scope)) {
            throw new ToolException("Block '" + block.label() + "' is shared with you by agent '" + block.ownerAgentId()
                    + "'; only its owner can move it into archival memory. Nothing was changed.");
        }
        boolean replacesEntry = store.archival().getByLabel(scope, block.label()).isPresent();
        Acl.Operation onArchival = replacesEntry ? Acl.Operation.OVERWRITE : Acl.Operation.APPEND;
        if (Acl.decide(archivalPermission, onArchival) != Acl.Decision.ALLOW) {
            throw new ToolException("Your archival memory has permission " + archivalPermission.name().toLowerCase(Locale.ROOT)
                    + ", which does not allow " + (replacesEntry ? "replacing the existing entry '" + block.label() + "'"
                    : "adding an entry") + ". Nothing was changed.");
        }
        access.authorise(scope, block, Acl.Operation.OVERWRITE, BlockAccess.ARCHIVE_CHANGE, ctx);
    }

    private String load(Scope scope, Load l) {
        String target = l.asLabel().filter(s -> !s.isBlank()).orElse(l.label());
        if (store.archival().getByLabel(scope, l.label()).isEmpty()) {
            throw new ToolException("There is no archival entry labelled '" + l.label() + "'. Use search or recall to find it.");
        }
        if (store.blocks().get(scope, target).isPresent()) {
            throw new ToolException("A block labelled '" + target + "' already exists; load under another label with "
                    + "as_label, or archive that block first.");
        }
        Block loaded = store.blocks().load(scope, l.label(), target, loadLimit);
        return "Loaded archival entry '" + l.label() + "' into working block '" + target + "' (" + BlockAccess.size(loaded)
                + "); the archival entry is kept.";
    }

    private String swap(Scope scope, Swap s, ToolContext ctx) {
        Block out = access.require(scope, s.archiveLabel());
        if (store.archival().getByLabel(scope, s.loadLabel()).isEmpty()) {
            throw new ToolException("There is no archival entry labelled '" + s.loadLabel() + "'. Nothing was changed.");
        }
        if (!s.loadLabel().equals(s.archiveLabel()) && store.blocks().get(scope, s.loadLabel()).isPresent()) {
            throw new ToolException("A block labelled '" + s.loadLabel() + "' already exists; archive it first. Nothing was changed.");
        }
        authoriseArchive(scope, out, ctx);
        BlockStore.Swap result = store.blocks().swap(scope, s.archiveLabel(), s.loadLabel(), loadLimit);
        return "Archived block '" + s.archiveLabel() + "' and loaded '" + s.loadLabel() + "' in its place ("
                + BlockAccess.size(result.loaded()) + ").";
    }

    private static String view(Block b) {
        return "Block '" + b.label() + "' (" + b.type().name().toLowerCase(Locale.ROOT) + ", permission "
                + b.permission().name().toLowerCase(Locale.ROOT) + ", " + BlockAccess.size(b) + (b.description().isBlank() ? "" : ", "
                + b.description()) + "):\n" + b.value();
    }

    private String list(Scope scope) {
        List<Block> blocks = store.blocks().list(scope);
        if (blocks.isEmpty()) {
            return "You have no memory blocks.";
        }
        StringBuilder sb = new StringBuilder();
        for (Block b : blocks) {
            sb.append("- ").append(b.label()).append(": ").append(BlockAccess.size(b)).append(", ")
                    .append(b.type().name().toLowerCase(Locale.ROOT)).append(", ")
                    .append(b.permission().name().toLowerCase(Locale.ROOT))
                    .append(b.isShared(scope) ? ", shared by agent " + b.ownerAgentId() : "")
                    .append(b.description().isBlank() ? "" : " - " + b.description()).append('\n');
        }
        return sb.toString().stripTrailing();
    }
}

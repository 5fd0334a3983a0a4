package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
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
import dev.engram.memory.Scope;
import dev.engram.memory.VersionConflictException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code block}: the agent's core memory blocks: append, replace, archive, load, swap, view, list.
 * Every write is decided by {@link Acl#decide} on the block's permission for this agent; partner and
 * human blocks need consent from the {@link PermissionBroker}.
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
final class BlockTool implements AiTool<BlockTool.Op, String> {
    static final String NAME = "block";
    private static final ToolInfo INFO = new ToolInfo(NAME,
            "Edit your core memory blocks, the labelled notes shown in every prompt (such as \"human\" about the "
                + "user and \"persona\" about yourself). Use append to add a new fact, replace to correct or remove "
                + "text (old_text must match exactly once), archive to move a block you no longer need into archival "
                + "memory, load to bring a copy of an archival entry in as a working block, swap to do both at once, view and "
                + "list to read. Returns what changed and the block's new size against its character limit.",
            SafetyTier.SIDE_EFFECTING, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);
    static final String LABEL = "Label of the block, e.g. \"human\" (for load: the label of the archival entry).";
    private static final int MAX_RETRIES = 3;

    @JsonClassDescription("Memory block operations.")
    sealed interface Op permits Append, Replace, Archive, Load, Swap, View, ListBlocks {
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
    private final PermissionBroker broker;
    private final Duration consentTimeout;
    private final int loadLimit;
    private final MemoryPermission archivalPermission;

    BlockTool(MemoryStore store, PermissionBroker broker, Duration consentTimeout, int loadLimit,
            MemoryPermission archivalPermission) {
        this.store = store;
        this.broker = broker;
        this.consentTimeout = consentTimeout;
        this.loadLimit = loadLimit;
        this.archivalPermission = archivalPermission;
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Op> inputType() {
        return Op.class;
    }

    @Override
    public String execute(Op op, ToolContext ctx) throws Exception {
        Scope scope = ToolScopes.of(ctx);
        try {
            return switch (op) {
                case Append a -> append(scope, a, ctx);
                case Replace r -> replace(scope, r, ctx);
                case Archive a -> archive(scope, a, ctx);
                case Load l -> load(scope, l);
                case Swap s -> swap(scope, s, ctx);
                case View v -> view(require(scope, v.label()));
                case ListBlocks l -> list(scope);
            };
        } catch (MemoryException | IllegalArgumentException e) {
            // Limits, versions, missing items and invalid text: the store's sentence is for the model too.
            throw new ToolException(e.getMessage());
        }
    }

    private Block require(Scope scope, String label) {
        return store.blocks().get(scope, label).orElseThrow(() -> new ToolException("There is no block labelled '" + label
                + "'. Existing blocks: " + labels(scope) + "."));
    }

    private String labels(Scope scope) {
        List<String> labels = store.blocks().list(scope).stream().map(Block::label).toList();
        return labels.isEmpty() ? "none" : String.join(", ", labels);
    }

    /** Applies the ACL, asking the broker for consent where needed. */
    private void authorise(Scope scope, Block block, Acl.Operation operation, String change, ToolContext ctx) {
        Acl.Decision decision = Acl.decide(block.permission(), operation);
        String perm = block.permission().name().toLowerCase(Locale.ROOT);
        String what = operation.name().toLowerCase(Locale.ROOT);
        switch (decision) {
            case ALLOW -> { }
            case DENY -> throw new ToolException("Block '" + block.label() + "' has permission " + perm + ", which does not allow "
                    + what + (change.equals(ARCHIVE_CHANGE) ? " (archiving takes its text out of your prompt)" : "")
                    + ". Nothing was changed.");
            case NEEDS_CONSENT -> {
                ConsentRequest request = new ConsentRequest(scope.userId(), scope.agentId(), ctx.sessionId().orElse(""),
                        block.label(), block.permission(), operation, change);
                boolean granted;
                try {
                    granted = Boolean.TRUE.equals(broker.requestConsent(request).toCompletableFuture()
                            .get(consentTimeout.toMillis(), TimeUnit.MILLISECONDS));
                } catch (TimeoutException e) {
                    throw new ToolException("Block '" + block.label() + "' has permission " + perm + " and needs consent to "
                            + what + "; none came within " + consentTimeout.toSeconds() + " s. Nothing was changed.");
                } catch (ExecutionException e) {
                    granted = false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ToolException("The consent request was cancelled. Nothing was changed.");
                }
                if (!granted) {
                    throw new ToolException("Block '" + block.label() + "' has permission " + perm + " and consent to " + what
                            + " was not given. Nothing was changed.");
                }
            }
        }
    }

    private static String size(Block b) {
        return b.size() + "/" + b.limit() + " characters";
    }

    private String append(Scope scope, Append a, ToolContext ctx) {
        Block block = require(scope, a.label());
        authorise(scope, block, Acl.Operation.APPEND, a.text(), ctx);
        // Appends commute: no version check, so concurrent appends never conflict.
        Block after = store.blocks().appendLine(scope, a.label(), a.text());
        return "Appended to block '" + a.label() + "'; it now holds " + size(after) + ".";
    }

    private String replace(Scope scope, Replace r, ToolContext ctx) {
        if (r.oldText().isEmpty()) {
            throw new ToolException("old_text is empty; give the exact text to replace (use append to add text).");
        }
        Block block = require(scope, r.label());
        authorise(scope, block, Acl.Operation.OVERWRITE, "replace \"" + r.oldText() + "\" with \"" + r.newText() + "\"", ctx);
        for (int attempt = 1; ; attempt++) {
            Block current = attempt == 1 ? block : require(scope, r.label());
            String value = current.value();
            int first = value.indexOf(r.oldText());
            if (first < 0) {
                throw new ToolException("old_text was not found in block '" + r.label() + "'. " + closestLines(value, r.oldText())
                        + "Copy the text exactly, including spacing and punctuation.");
            }
            int second = value.indexOf(r.oldText(), first + 1);
            if (second >= 0) {
                throw new ToolException("old_text occurs " + count(value, r.oldText()) + " times in block '" + r.label()
                        + "' (lines " + lineOf(value, first) + " and " + lineOf(value, second)
                        + "); include more of the surrounding text so that it matches exactly once.");
            }
            String updated = value.substring(0, first) + r.newText() + value.substring(first + r.oldText().length());
            try {
                Block after = store.blocks().replace(scope, r.label(), updated, current.version());
                return "Replaced text in block '" + r.label() + "'; it now holds " + size(after) + ".";
            } catch (VersionConflictException e) {
                if (attempt == MAX_RETRIES) {
                    throw e;
                }
            }
        }
    }

    private static int count(String haystack, String needle) {
        int n = 0;
        for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    private static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /** The lines most like the text that was not found, so the model can copy the right one. */
    static String closestLines(String value, String wanted) {
        String[] lines = value.split("\n", -1);
        record Scored(int line, String text, double score) {
        }
        List<Scored> scored = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].isBlank()) {
                scored.add(new Scored(i + 1, lines[i], similarity(lines[i], wanted)));
            }
        }
        if (scored.isEmpty()) {
            return "The block is empty. ";
        }
        scored.sort(Comparator.comparingDouble(Scored::score).reversed());
        StringBuilder sb = new StringBuilder("Closest lines:\n");
        for (Scored s : scored.subList(0, Math.min(3, scored.size()))) {
            sb.append("  line ").append(s.line()).append(": ").append(s.text()).append('\n');
        }
        return sb.toString();
    }

    /** Similarity in [0, 1]: 1 - Levenshtein distance / longer length, on lower-cased text. */
    static double similarity(String a, String b) {
        String x = a.toLowerCase(Locale.ROOT).strip();
        String y = b.toLowerCase(Locale.ROOT).strip();
        if (x.isEmpty() && y.isEmpty()) {
            return 1;
        }
        if (x.length() > 2_000 || y.length() > 2_000) {
            return x.contains(y) || y.contains(x) ? 0.9 : 0;
        }
        int[] prev = new int[y.length() + 1];
        int[] cur = new int[y.length() + 1];
        for (int j = 0; j <= y.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= x.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= y.length(); j++) {
                int cost = x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return 1.0 - prev[y.length()] / (double) Math.max(x.length(), y.length());
    }

    private static final String ARCHIVE_CHANGE = "move the block into archival memory";

    private String archive(Scope scope, Archive a, ToolContext ctx) {
        Block block = require(scope, a.label());
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
        authorise(scope, block, Acl.Operation.OVERWRITE, ARCHIVE_CHANGE, ctx);
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
        return "Loaded archival entry '" + l.label() + "' into working block '" + target + "' (" + size(loaded)
                + "); the archival entry is kept.";
    }

    private String swap(Scope scope, Swap s, ToolContext ctx) {
        Block out = require(scope, s.archiveLabel());
        if (store.archival().getByLabel(scope, s.loadLabel()).isEmpty()) {
            throw new ToolException("There is no archival entry labelled '" + s.loadLabel() + "'. Nothing was changed.");
        }
        if (!s.loadLabel().equals(s.archiveLabel()) && store.blocks().get(scope, s.loadLabel()).isPresent()) {
            throw new ToolException("A block labelled '" + s.loadLabel() + "' already exists; archive it first. Nothing was changed.");
        }
        authoriseArchive(scope, out, ctx);
        BlockStore.Swap result = store.blocks().swap(scope, s.archiveLabel(), s.loadLabel(), loadLimit);
        return "Archived block '" + s.archiveLabel() + "' and loaded '" + s.loadLabel() + "' in its place ("
                + size(result.loaded()) + ").";
    }

    private static String view(Block b) {
        return "Block '" + b.label() + "' (" + b.type().name().toLowerCase(Locale.ROOT) + ", permission "
                + b.permission().name().toLowerCase(Locale.ROOT) + ", " + size(b) + (b.description().isBlank() ? "" : ", "
                + b.description()) + "):\n" + b.value();
    }

    private String list(Scope scope) {
        List<Block> blocks = store.blocks().list(scope);
        if (blocks.isEmpty()) {
            return "You have no memory blocks.";
        }
        StringBuilder sb = new StringBuilder();
        for (Block b : blocks) {
            sb.append("- ").append(b.label()).append(": ").append(size(b)).append(", ")
                    .append(b.type().name().toLowerCase(Locale.ROOT)).append(", ")
                    .append(b.permission().name().toLowerCase(Locale.ROOT))
                    .append(b.isShared(scope) ? ", shared by agent " + b.ownerAgentId() : "")
                    .append(b.description().isBlank() ? "" : " - " + b.description()).append('\n');
        }
        return sb.toString().stripTrailing();
    }
}

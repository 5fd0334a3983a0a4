package dev.engram.tools;

import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.memory.Acl;
import dev.engram.memory.Block;
import dev.engram.memory.BlockStore;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import dev.engram.memory.VersionConflictException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * The block edits every block tool makes (Engram's {@code block} and Letta's memory tools), each under
 * the one permission rule: {@link Acl#decide} on the block's permission for this agent, with consent
 * from the {@link PermissionBroker} for partner and human blocks. Errors are {@link ToolException}s
 * whose message tells the model what to do instead; a refused edit changes nothing.
 *
 * <p>Blocks an agent creates are its own, with permission {@code admin}: it may rewrite, rename and
 * delete them. Deleting any other block needs {@code admin} too; renaming needs {@code overwrite} and an
 * own, unshared block.
 */
final class BlockAccess {
    private static final int MAX_RETRIES = 3;
    /** The change an archive makes, as a consent request and a refusal name it. */
    static final String ARCHIVE_CHANGE = "move the block into archival memory";

    private final MemoryStore store;
    private final PermissionBroker broker;
    private final Duration consentTimeout;

    BlockAccess(MemoryStore store, PermissionBroker broker, Duration consentTimeout) {
        this.store = store;
        this.broker = broker;
        this.consentTimeout = consentTimeout;
    }

    MemoryStore store() {
        return store;
    }

    Block require(Scope scope, String label) {
        return store.blocks().get(scope, label).orElseThrow(() -> new ToolException("There is no block labelled '" + label
                + "'. Existing blocks: " + labels(scope) + "."));
    }

    String labels(Scope scope) {
        List<String> labels = store.blocks().list(scope).stream().map(Block::label).toList();
        return labels.isEmpty() ? "none" : String.join(", ", labels);
    }

    static String size(Block b) {
        return b.size() + "/" + b.limit() + " characters";
    }

    /** Applies the ACL, asking the broker for consent where needed. */
    void authorise(Scope scope, Block block, Acl.Operation operation, String change, ToolContext ctx) {
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
                        block.label(), block.permission(), operation, change, ctx.callId().orElse(""));
                boolean granted;
                try {
                    granted = Boolean.TRUE.equals(broker.requestConsent(request).toCompletableFuture()
                            .get(consentTimeout.toMillis(), TimeUnit.MILLISECONDS));
                } catch (TimeoutException e) {
                    throw new ToolException("Block '" + block.label() + "' has permission " + perm + " and needs consent to "
                            + what + "; none came within " + consentTimeout.toSeconds() + " s. Nothing was changed.");
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof PermissionBroker.ConsentUnavailableException no) {
                        throw new ToolException("Block '" + block.label() + "' has permission " + perm + " and needs consent to "
                                + what + ", which could not be asked for: " + no.getMessage() + ". Nothing was changed.");
                    }
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

    /** The blocks, recording the call's actor (a companion agent) as the origin of each write. */
    private BlockStore blocks(ToolContext ctx) {
        return ctx.actor().map(a -> store.blocks().by(a)).orElse(store.blocks());
    }

    /** Adds {@code text} as a new line at the end. Appends commute: no version check. */
    Block append(Scope scope, String label, String text, ToolContext ctx) {
        Block block = require(scope, label);
        authorise(scope, block, Acl.Operation.APPEND, text, ctx);
        return blocks(ctx).appendLine(scope, label, text);
    }

    /** Replaces the one occurrence of {@code oldText}; none or several is an error that shows where. */
    Block replaceOnce(Scope scope, String label, String oldText, String newText, String oldName, ToolContext ctx) {
        if (oldText.isEmpty()) {
            throw new ToolException(oldName + " is empty; give the exact text to replace.");
        }
        return edit(scope, label, "replace \"" + oldText + "\" with \"" + newText + "\"", ctx, value -> {
            int first = value.indexOf(oldText);
            if (first < 0) {
                throw new ToolException(oldName + " was not found in block '" + label + "'. " + TextMatch.closestLines(value, oldText)
                        + "Copy the text exactly, including spacing and punctuation.");
            }
            int second = value.indexOf(oldText, first + 1);
            if (second >= 0) {
                throw new ToolException(oldName + " occurs " + TextMatch.count(value, oldText) + " times in block '" + label
                        + "' (lines " + TextMatch.lineOf(value, first) + " and " + TextMatch.lineOf(value, second)
                        + "); include more of the surrounding text so that it matches exactly once.");
            }
            return value.substring(0, first) + newText + value.substring(first + oldText.length());
        });
    }

    /** Replaces every occurrence of {@code oldText} (Letta's {@code core_memory_replace}); none is an error. */
    Block replaceAll(Scope scope, String label, String oldText, String newText, ToolContext ctx) {
        if (oldText.isEmpty()) {
            throw new ToolException("old_content is empty; give the exact text to replace.");
        }
        return edit(scope, label, "replace \"" + oldText + "\" with \"" + newText + "\"", ctx, value -> {
            if (!value.contains(oldText)) {
                throw new ToolException("old_content was not found in block '" + label + "'. "
                        + TextMatch.closestLines(value, oldText) + "Copy the text exactly.");
            }
            return value.replace(oldText, newText);
        });
    }

    /**
     * Inserts {@code text} as lines after line {@code afterLine} (0: at the top; -1: at the end), as
     * Letta's {@code memory_insert} does.
     */
    Block insert(Scope scope, String label, String text, int afterLine, ToolContext ctx) {
        return edit(scope, label, "insert \"" + text + "\"", ctx, value -> {
            List<String> lines = value.isEmpty() ? new java.util.ArrayList<>() : new java.util.ArrayList<>(List.of(value.split("\n", -1)));
            int at = afterLine == -1 ? lines.size() : afterLine;
            if (at < 0 || at > lines.size()) {
                throw new ToolException("insert_line " + afterLine + " is outside the block, which has " + lines.size()
                        + " lines: use 0 to insert at the top, " + lines.size() + " or -1 at the end.");
            }
            lines.addAll(at, List.of(text.split("\n", -1)));
            return String.join("\n", lines);
        });
    }

    /** Replaces the whole value. */
    Block rewrite(Scope scope, String label, String value, ToolContext ctx) {
        return edit(scope, label, "rewrite the block as \"" + value + "\"", ctx, old -> value);
    }

    /** A new block owned by the agent, with permission admin (it may rewrite, rename and delete it). */
    Block create(Scope scope, String label, String value, String description, int limit, ToolContext ctx) {
        if (store.blocks().get(scope, label).isPresent()) {
            throw new ToolException("A block labelled '" + label + "' already exists; edit it, or choose another label.");
        }
        NewBlock block = NewBlock.builder(label).value(value).description(description).limit(limit)
                .permission(MemoryPermission.ADMIN).build();
        return blocks(ctx).create(scope, block);
    }

    /** Deletes the block: admin only, and only the owner's. */
    void delete(Scope scope, String label, ToolContext ctx) {
        Block block = ownBlock(scope, label, "delete");
        authorise(scope, block, Acl.Operation.DELETE, "delete the block", ctx);
        blocks(ctx).delete(scope, label, block.version());
    }

    /** Gives an own, unshared block a new label; needs overwrite. */
    Block rename(Scope scope, String from, String to, ToolContext ctx) {
        Block block = ownBlock(scope, from, "rename");
        authorise(scope, block, Acl.Operation.OVERWRITE, "rename the block to '" + to + "'", ctx);
        return blocks(ctx).rename(scope, from, to, block.version());
    }

    private Block ownBlock(Scope scope, String label, String what) {
        Block block = require(scope, label);
        if (block.isShared(scope)) {
            throw new ToolException("Block '" + label + "' is shared with you by agent '" + block.ownerAgentId() + "'; only its "
                    + "owner can " + what + " it. Nothing was changed.");
        }
        return block;
    }

    /** Authorises an overwrite, then applies {@code change} to the current value, retrying on a concurrent write. */
    private Block edit(Scope scope, String label, String change, ToolContext ctx, UnaryOperator<String> edit) {
        Block block = require(scope, label);
        authorise(scope, block, Acl.Operation.OVERWRITE, change, ctx);
        for (int attempt = 1; ; attempt++) {
            Block current = attempt == 1 ? block : require(scope, label);
            String updated = edit.apply(current.value());
            try {
                return blocks(ctx).replace(scope, label, updated, current.version());
            } catch (VersionConflictException e) {
                if (attempt == MAX_RETRIES) {
                    throw e;
                }
            }
        }
    }
}

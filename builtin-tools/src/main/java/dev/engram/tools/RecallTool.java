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
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code recall}: the agent's archival memory by label: insert, append, read, delete. The agent's
 * permission over its archival memory (set at registration, {@code read_write} by default) is decided
 * by {@link Acl#decide}: insert and append need append, delete needs admin.
 */
final class RecallTool implements AiTool<RecallTool.Op, String> {
    static final String NAME = "recall";
    private static final ToolInfo INFO = new ToolInfo(NAME,
            "Keep long-term facts and documents in your archival memory, outside the prompt, by label. Use insert "
                + "to store something new, append to add to an entry, read to get an entry back by its label, delete to "
                + "remove one. To find entries by meaning rather than label, use search. Returns the entry or what changed.",
            SafetyTier.SIDE_EFFECTING, ToolInfo.DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);

    sealed interface Op permits Insert, Append, Read, Delete {
    }

    @JsonClassDescription("store a new fact or document")
    record Insert(@JsonPropertyDescription("A short label to find it again by, unique among your entries.") String label,
            @JsonPropertyDescription("The text to remember.") String content,
            @JsonPropertyDescription("Optional tags for filtering searches.") Optional<List<String>> tags) implements Op {
    }

    @JsonClassDescription("add text to an existing entry, on a new line")
    record Append(@JsonPropertyDescription("A short label to find it again by, unique among your entries.") String label,
            @JsonPropertyDescription("The text to remember.") String content) implements Op {
    }

    @JsonClassDescription("read an entry by its label")
    record Read(@JsonPropertyDescription("A short label to find it again by, unique among your entries.") String label) implements Op {
    }

    @JsonClassDescription("delete an entry (needs admin)")
    record Delete(@JsonPropertyDescription("A short label to find it again by, unique among your entries.") String label) implements Op {
    }

    private final MemoryStore store;
    private final MemoryPermission permission;

    RecallTool(MemoryStore store, MemoryPermission permission) {
        this.store = store;
        this.permission = permission;
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Op> inputType() {
        return Op.class;
    }

    private void check(Acl.Operation operation) {
        if (Acl.decide(permission, operation) != Acl.Decision.ALLOW) {
            throw new ToolException("Your archival memory has permission " + permission.name().toLowerCase(Locale.ROOT)
                    + ", which does not allow " + operation.name().toLowerCase(Locale.ROOT) + ". Nothing was changed.");
        }
    }

    @Override
    public String execute(Op op, ToolContext ctx) {
        Scope scope = ToolScopes.of(ctx);
        try {
            return switch (op) {
                case Insert i -> {
                    check(Acl.Operation.APPEND);
                    if (i.content().isBlank()) {
                        throw new ToolException("content is empty; give the text to remember.");
                    }
                    ArchivalEntry e = store.archival().insert(scope, NewArchivalEntry.labelled(i.label(), i.content(),
                            i.tags().orElse(List.of())));
                    yield "Stored archival entry '" + i.label() + "' (" + e.content().length() + " characters, id " + e.id() + ").";
                }
                case Append a -> {
                    check(Acl.Operation.APPEND);
                    if (a.content().isBlank()) {
                        throw new ToolException("content is empty; give the text to add.");
                    }
                    ArchivalEntry before = store.archival().getByLabel(scope, a.label()).orElseThrow(() -> missing(a.label()));
                    ArchivalEntry e = store.archival().append(scope, a.label(), before.content().isEmpty() ? a.content() : "\n" + a.content());
                    yield "Appended to archival entry '" + a.label() + "'; it now holds " + e.content().length() + " characters.";
                }
                case Read r -> {
                    ArchivalEntry e = store.archival().getByLabel(scope, r.label()).orElseThrow(() -> missing(r.label()));
                    yield "Archival entry '" + r.label() + "'" + (e.tags().isEmpty() ? "" : " (tags: " + String.join(", ", e.tags()) + ")")
                            + ", updated " + e.updatedAt() + ":\n" + e.content();
                }
                case Delete d -> {
                    check(Acl.Operation.DELETE);
                    ArchivalEntry e = store.archival().getByLabel(scope, d.label()).orElseThrow(() -> missing(d.label()));
                    store.archival().delete(scope, e.id());
                    yield "Deleted archival entry '" + d.label() + "'.";
                }
            };
        } catch (MemoryException | IllegalArgumentException e) {
            throw new ToolException(e.getMessage());
        }
    }

    private static ToolException missing(String label) {
        return new ToolException("There is no archival entry labelled '" + label + "'. Use search to find entries by meaning.");
    }
}

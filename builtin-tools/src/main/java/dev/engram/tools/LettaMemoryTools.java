package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolOutput;
import dev.engram.memory.Block;
import dev.engram.memory.MemoryException;
import dev.engram.memory.NewBlock;
import java.util.List;
import java.util.Optional;

/**
 * Letta's core-memory tools, with Letta's names and argument shapes, over Engram's blocks and the same
 * permission rule as {@code block} ({@link BlockAccess}): {@code core_memory_append},
 * {@code core_memory_replace}, {@code memory_insert}, {@code memory_replace}, {@code memory_rethink},
 * {@code memory_finish_edits} and the omni {@code memory} tool (create, str_replace, insert, delete,
 * rename). Letta writes a block's path as {@code /memories/LABEL}; the label alone works too.
 */
final class LettaMemoryTools {
    private static final String LABEL = "Section of the memory to be edited, identified by its label.";

    private LettaMemoryTools() {
    }

    record CoreAppend(@JsonPropertyDescription(LABEL) String label,
            @JsonPropertyDescription("Content to write to the memory. All unicode (including emojis) are supported.") String content) {
    }

    record CoreReplace(@JsonPropertyDescription(LABEL) String label,
            @JsonPropertyDescription("String to replace. Must be an exact match.") String oldContent,
            @JsonPropertyDescription("Content to write to the memory. All unicode (including emojis) are supported.") String newContent) {
    }

    record Insert(@JsonPropertyDescription(LABEL) String label,
            @JsonPropertyDescription("The text to insert. Do not include line number prefixes.") String newStr,
            @JsonPropertyDescription("The line number after which to insert the text (0 for beginning of file). Defaults to -1 "
                    + "(end of the file).") Optional<Integer> insertLine) {
    }

    record Replace(@JsonPropertyDescription(LABEL) String label,
            @JsonPropertyDescription("The text to replace (must match exactly, including whitespace and indentation).") String oldStr,
            @JsonPropertyDescription("The new text to insert in place of the old text. Do not include line number prefixes.")
            String newStr) {
    }

    record Rethink(@JsonPropertyDescription("The memory block to be rewritten, identified by its label.") String label,
            @JsonPropertyDescription("The new memory contents with information integrated from existing memory blocks and the "
                    + "conversation context.") String newMemory) {
    }

    record Finish() {
    }

    /** The omni tool's sub-commands. */
    enum Command {
        @JsonProperty("create") CREATE,
        @JsonProperty("str_replace") STR_REPLACE,
        @JsonProperty("insert") INSERT,
        @JsonProperty("delete") DELETE,
        @JsonProperty("rename") RENAME
    }

    record Omni(@JsonPropertyDescription("The sub-command: create, str_replace, insert, delete or rename.") Command command,
            @JsonPropertyDescription("Path of the memory block, /memories/LABEL (for create, str_replace, insert, delete).")
            Optional<String> path,
            @JsonPropertyDescription("The value of the new block (for create).") Optional<String> fileText,
            @JsonPropertyDescription("The description of the new block (for create).") Optional<String> description,
            @JsonPropertyDescription("Old text to replace (for str_replace).") Optional<String> oldStr,
            @JsonPropertyDescription("New text (for str_replace).") Optional<String> newStr,
            @JsonPropertyDescription("Line after which to insert, 0 for the top, -1 for the end (for insert).")
            Optional<Integer> insertLine,
            @JsonPropertyDescription("Text to insert (for insert).") Optional<String> insertText,
            @JsonPropertyDescription("Current path (for rename).") Optional<String> oldPath,
            @JsonPropertyDescription("New path (for rename).") Optional<String> newPath) {
    }

    static List<AiTool<?, ?>> all(BlockAccess access) {
        return List.of(
                edit("core_memory_append", "Append to the contents of core memory.", CoreAppend.class, (in, ctx) -> {
                    Block b = access.append(ToolScopes.of(ctx), in.label(), in.content(), ctx);
                    return "Appended to block '" + in.label() + "'; it now holds " + BlockAccess.size(b) + ".";
                }),
                edit("core_memory_replace", "Replace the contents of core memory. To delete memories, use an empty string "
                        + "for new_content.", CoreReplace.class, (in, ctx) -> {
                    Block b = access.replaceAll(ToolScopes.of(ctx), in.label(), in.oldContent(), in.newContent(), ctx);
                    return "Replaced text in block '" + in.label() + "'; it now holds " + BlockAccess.size(b) + ".";
                }),
                edit("memory_insert", "The memory_insert command allows you to insert text at a specific location in a memory "
                        + "block.", Insert.class, (in, ctx) -> {
                    Block b = access.insert(ToolScopes.of(ctx), in.label(), in.newStr(), in.insertLine().orElse(-1), ctx);
                    return "Inserted into block '" + in.label() + "'; it now holds " + BlockAccess.size(b) + ".";
                }),
                edit("memory_replace", "The memory_replace command allows you to replace a specific string in a memory block "
                        + "with a new string. This is used for making precise edits. old_str must occur exactly once.",
                        Replace.class, (in, ctx) -> {
                    Block b = access.replaceOnce(ToolScopes.of(ctx), in.label(), in.oldStr(), in.newStr(), "old_str", ctx);
                    return "Replaced text in block '" + in.label() + "'; it now holds " + BlockAccess.size(b) + ".";
                }),
                edit("memory_rethink", "The memory_rethink command allows you to completely rewrite the contents of a memory "
                        + "block. Use it to make large sweeping changes, e.g. to reorganise a block; a block that does not "
                        + "exist yet is created.", Rethink.class, (in, ctx) -> {
                    var scope = ToolScopes.of(ctx);
                    if (access.store().blocks().get(scope, in.label()).isEmpty()) {
                        Block b = access.create(scope, in.label(), in.newMemory(), "", NewBlock.DEFAULT_LIMIT, ctx);
                        return "Created block '" + in.label() + "' (" + BlockAccess.size(b) + ").";
                    }
                    Block b = access.rewrite(scope, in.label(), in.newMemory(), ctx);
                    return "Rewrote block '" + in.label() + "'; it now holds " + BlockAccess.size(b) + ".";
                }),
                tool("memory_finish_edits", "Call the memory_finish_edits command when you are finished making edits "
                        + "(integrating all new information) into the memory blocks.", SafetyTier.SIDE_EFFECTING, Finish.class,
                        (in, ctx) -> "Finished editing memory."),
                edit("memory", "Memory management tool with sub-commands for memory block operations: create a block, "
                        + "str_replace text in it, insert text at a line, delete it, or rename it. Paths are /memories/LABEL.",
                        Omni.class, (in, ctx) -> omni(access, in, ctx)));
    }

    private static String omni(BlockAccess access, Omni in, ToolContext ctx) {
        var scope = ToolScopes.of(ctx);
        return switch (in.command()) {
            case CREATE -> {
                String label = label(need(in.path(), "path", "create"));
                Block b = access.create(scope, label, in.fileText().orElse(""), in.description().orElse(""), NewBlock.DEFAULT_LIMIT, ctx);
                yield "Created block '" + label + "' (" + BlockAccess.size(b) + ").";
            }
            case STR_REPLACE -> {
                String label = label(need(in.path(), "path", "str_replace"));
                Block b = access.replaceOnce(scope, label, need(in.oldStr(), "old_str", "str_replace"), in.newStr().orElse(""),
                        "old_str", ctx);
                yield "Replaced text in block '" + label + "'; it now holds " + BlockAccess.size(b) + ".";
            }
            case INSERT -> {
                String label = label(need(in.path(), "path", "insert"));
                Block b = access.insert(scope, label, need(in.insertText(), "insert_text", "insert"), in.insertLine().orElse(-1), ctx);
                yield "Inserted into block '" + label + "'; it now holds " + BlockAccess.size(b) + ".";
            }
            case DELETE -> {
                String label = label(need(in.path(), "path", "delete"));
                access.delete(scope, label, ctx);
                yield "Deleted block '" + label + "'.";
            }
            case RENAME -> {
                String from = label(need(in.oldPath(), "old_path", "rename"));
                Block b = access.rename(scope, from, label(need(in.newPath(), "new_path", "rename")), ctx);
                yield "Renamed block '" + from + "' to '" + b.label() + "'.";
            }
        };
    }

    private static String need(Optional<String> value, String field, String command) {
        return value.filter(v -> !v.isBlank()).orElseThrow(() -> new ToolException("The " + command + " command needs " + field
                + "."));
    }

    /** {@code /memories/human}, {@code /human} and {@code human} all name block {@code human}. */
    static String label(String path) {
        String p = path.strip();
        if (p.startsWith("/memories/")) {
            p = p.substring("/memories/".length());
        } else if (p.startsWith("/")) {
            p = p.substring(1);
        }
        if (p.isBlank()) {
            throw new ToolException("The path '" + path + "' names no block; use /memories/LABEL.");
        }
        return p;
    }

    /** A tool whose successful call edits memory, and says so ({@link ToolEffect#MEMORY_EDITED}). */
    private static <I> AiTool<I, ToolOutput> edit(String name, String description, Class<I> input, AiTool.Function<I, String> body) {
        return tool(name, description, SafetyTier.SIDE_EFFECTING, input,
                (in, ctx) -> ToolOutput.of(body.apply(in, ctx), ToolEffect.MEMORY_EDITED));
    }

    /** A tool ({@link AiTool#of}) whose store and argument errors reach the model as tool errors. */
    static <I, O> AiTool<I, O> tool(String name, String description, SafetyTier tier, Class<I> input, AiTool.Function<I, O> body) {
        return AiTool.of(name, description, input, tier, (in, ctx) -> {
            try {
                return body.apply(in, ctx);
            } catch (MemoryException | IllegalArgumentException e) {
                throw new ToolException(e.getMessage());
            }
        });
    }
}

package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.memory.WorkState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code write_memory_dump}: a snapshot of the calling agent's memory written into the workspace, as Markdown (or JSON
 * for a path ending in {@code .json}): its core memory blocks, how many notes its user has, its most recent archival
 * entries, its task list and its goals with their latest checkpoints and decisions. It reads memory and writes one file;
 * the file holds what the agent could already read, for a person (or a later task) to look at.
 */
final class MemoryDumpTool implements AiTool<MemoryDumpTool.Input, String> {
    static final String NAME = "write_memory_dump";
    /** The most recent archival entries a dump holds. */
    static final int ARCHIVAL_ENTRIES = 20;
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    private static final ToolInfo INFO = ToolInfo.of(NAME, "Write a snapshot of your memory into the workspace: your "
            + "memory blocks, how many notes you keep, your " + ARCHIVAL_ENTRIES + " latest archival entries, your todos and "
            + "goals. Markdown, or JSON when the path ends in .json. Returns the path written.", SafetyTier.SIDE_EFFECTING);

    record Input(@JsonPropertyDescription("Where to write it, relative to the workspace root; default "
            + "memory-dumps/dump-<time>.md.") Optional<String> path) {
    }

    private final MemoryStore store;
    private final Workspace workspace;

    MemoryDumpTool(MemoryStore store, Workspace workspace) {
        this.store = store;
        this.workspace = workspace;
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public String execute(Input input, ToolContext ctx) throws Exception {
        Scope scope = ToolScopes.of(ctx);
        Instant now = store.clock().instant();
        String raw = input.path().map(String::strip).filter(p -> !p.isEmpty())
                .orElse("memory-dumps/dump-" + STAMP.format(now) + ".md");
        Path file = workspace.writable(raw);
        if (Files.isDirectory(file)) {
            throw new ToolException("'" + raw + "' is a directory; give a file name such as memory-dumps/dump.md.");
        }
        List<Block> blocks = store.blocks().list(scope);
        long notes = store.notes().count(scope.userId());
        List<ArchivalEntry> archival = store.archival().list(scope, 0, ARCHIVAL_ENTRIES);
        WorkState work;
        try {
            work = store.work().snapshot(scope);
        } catch (UnsupportedOperationException e) {
            work = WorkState.EMPTY; // a backend without work state: the dump has the rest
        }
        String text = raw.toLowerCase(Locale.ROOT).endsWith(".json") ? json(scope, now, blocks, notes, archival, work)
                : markdown(scope, now, blocks, notes, archival, work);
        SandboxUser.forThisJvm().createDirectories(file.getParent());
        FileTools.atomicWrite(file, text);
        return "Wrote your memory dump (" + blocks.size() + " blocks, " + archival.size() + " archival entries, "
                + work.todos().size() + " todos, " + work.openGoals().size() + " open goals; "
                + text.getBytes(StandardCharsets.UTF_8).length + " bytes) to " + workspace.display(file) + ".";
    }

    static String markdown(Scope scope, Instant now, List<Block> blocks, long notes, List<ArchivalEntry> archival,
            WorkState work) {
        StringBuilder md = new StringBuilder("# Memory of agent ").append(scope.agentId()).append("\n\nUser: ")
                .append(scope.userId()).append(". Written ").append(now).append(".\n\n## Memory blocks\n");
        for (Block b : blocks) {
            md.append("\n### ").append(b.label()).append(" (").append(b.size()).append('/').append(b.limit()).append(" chars)\n\n")
                    .append(b.value()).append('\n');
        }
        md.append("\n## Notes\n\n").append(notes).append(" notes about this user.\n\n## Latest archival entries\n\n");
        archival.forEach(a -> md.append("- ").append(a.createdAt()).append(": ").append(a.content().replace('\n', ' ')).append('\n'));
        md.append("\n## Todos\n\n");
        work.todos().forEach(t -> md.append("- ").append(WorkTools.line(t)).append('\n'));
        md.append("\n## Open goals\n");
        for (Goal g : work.openGoals()) {
            md.append("\n### ").append(g.title()).append(g.current() ? " (current)" : "").append("\n\n").append(g.id()).append('\n');
            if (!g.description().isEmpty()) {
                md.append('\n').append(g.description()).append('\n');
            }
        }
        if (work.currentGoal().isPresent()) {
            md.append("\n## Latest checkpoints of the current goal\n\n");
            work.checkpoints().forEach(e -> md.append("- ").append(e.text()).append('\n'));
            md.append("\n## Latest decisions of the current goal\n\n");
            work.decisions().forEach(e -> md.append("- ").append(e.text())
                    .append(e.rationale().isEmpty() ? "" : " (because " + e.rationale() + ")").append('\n'));
        }
        return md.toString();
    }

    static String json(Scope scope, Instant now, List<Block> blocks, long notes, List<ArchivalEntry> archival, WorkState work) {
        ObjectNode root = JSON.createObjectNode().put("user_id", scope.userId()).put("agent_id", scope.agentId())
                .put("written_at", now.toString()).put("notes", notes);
        ArrayNode b = root.putArray("blocks");
        blocks.forEach(x -> b.addObject().put("label", x.label()).put("value", x.value()).put("limit", x.limit()));
        ArrayNode a = root.putArray("archival");
        archival.forEach(x -> a.addObject().put("id", x.id()).put("content", x.content()).put("created_at", x.createdAt().toString()));
        ArrayNode t = root.putArray("todos");
        for (TodoItem x : work.todos()) {
            t.addObject().put("content", x.content()).put("status", x.status().wire());
        }
        ArrayNode g = root.putArray("open_goals");
        work.openGoals().forEach(x -> g.addObject().put("id", x.id()).put("title", x.title())
                .put("description", x.description()).put("current", x.current()));
        ArrayNode c = root.putArray("checkpoints");
        work.checkpoints().forEach(x -> c.addObject().put("text", x.text()).put("created_at", x.createdAt().toString()));
        ArrayNode d = root.putArray("decisions");
        for (GoalEntry x : work.decisions()) {
            d.addObject().put("decision", x.text()).put("rationale", x.rationale());
        }
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
    }
}

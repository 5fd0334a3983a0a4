package dev.engram.cli;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentType;
import dev.engram.agents.AgentFileImport;
import dev.engram.agents.AgentImport;
import dev.engram.agents.AgentRuntime;
import dev.engram.memory.Block;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram agent create|list|show|delete|export|import}. */
@Command(name = "agent", mixinStandardHelpOptions = true, description = "Create, inspect, export and import agents.",
        subcommands = {AgentCommands.Create.class, AgentCommands.ListAgents.class, AgentCommands.Show.class,
                AgentCommands.Delete.class, AgentCommands.Export.class, AgentCommands.Import.class})
final class AgentCommands extends GroupCommand {

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an agent.")
    static final class Create extends BaseCommand {
        @Parameters(paramLabel = "NAME", description = "The agent's name, unique for the user.")
        String name;

        @Mixin
        UserOption owner;

        @Option(names = "--id", paramLabel = "ID", description = "The agent's id; default: generated.")
        String id;

        @Option(names = "--model", paramLabel = "SPEC", description = "The model spec; default $ENGRAM_MODEL.")
        String model;

        @Option(names = "--system-prompt", paramLabel = "TEXT", description = "The agent's instructions.")
        String systemPrompt;

        @Option(names = "--block", paramLabel = "LABEL=VALUE", description = "A block to start with (repeatable); "
                + "default: human and persona.")
        List<String> blocks = new ArrayList<>();

        @Option(names = "--tools", split = ",", paramLabel = "NAME", description = "Tool names; default the built-in memory tools.")
        List<String> tools;

        @Option(names = "--context-window", paramLabel = "TOKENS", description = "Default 32768.")
        Integer contextWindow;

        @Option(names = "--max-steps", paramLabel = "N", description = "Default 10.")
        Integer maxSteps;

        @picocli.CommandLine.Mixin
        ToolOptions toolAccess;

        @Option(names = "--tool-rules", paramLabel = "FILE", description = "Letta tool rules: a JSON array of "
                + "InitToolRule, TerminalToolRule, ChildToolRule, ... in Letta's shapes.")
        java.nio.file.Path toolRules;

        @Override
        int run() {
            String spec = model != null ? model : root().environment().get("ENGRAM_MODEL");
            if (spec == null || spec.isBlank()) {
                throw usage("Missing --model (e.g. openai:gpt-4o-mini), and ENGRAM_MODEL is not set");
            }
            String user = owner.user;
            AgentDefinition.Builder b = AgentDefinition.builder(user).name(name).model(spec)
                    .agentType(AgentType.MEMGPT_V2_AGENT); // the loop its default prompt describes
            if (id != null) {
                b.id(id);
            }
            if (systemPrompt != null) {
                b.systemPrompt(systemPrompt);
            }
            if (blocks.isEmpty()) {
                b.block("human", "What I know about the user", "").block("persona", "Who I am", "I am a helpful assistant.");
            }
            for (String block : blocks) {
                int eq = block.indexOf('=');
                if (eq <= 0) {
                    throw usage("--block needs LABEL=VALUE, got '" + block + "'");
                }
                b.block(block.substring(0, eq), "", block.substring(eq + 1));
            }
            if (tools != null) {
                b.tools(tools);
            }
            if (contextWindow != null) {
                b.contextWindowTokens(contextWindow);
            }
            if (maxSteps != null) {
                b.maxSteps(maxSteps);
            }
            if (toolAccess.any()) {
                b.toolAccess(toolAccess.access());
            }
            if (toolAccess.code) {
                b.addTools(ToolOptions.CODE_MODE);
            }
            if (toolRules != null) {
                String json;
                try {
                    json = java.nio.file.Files.readString(toolRules);
                } catch (java.io.IOException e) {
                    throw usage("Cannot read --tool-rules " + toolRules + ": " + e.getMessage());
                }
                try {
                    b.toolRules(dev.engram.agents.ToolRules.parse(json));
                } catch (IllegalArgumentException e) {
                    throw usage("--tool-rules " + toolRules + ": " + e.getMessage());
                }
            }
            AgentDefinition definition = b.build();
            try (Engine engine = root().engine()) {
                Agent agent = engine.runtime(toolAccess::applyCode).create(definition);
                out().println("Created agent '" + agent.name() + "' (id " + agent.id() + ") for user '" + user + "'.");
            }
            return 0;
        }
    }

    /**
     * {@code engram agent list}. Subagents (started by another agent's {@code spawn_subagent}) are hidden unless
     * {@code --all}: they are kept, not deleted, because their memory and conversation are the record of work their
     * parent delegated, but they are not agents a user talks to.
     */
    @Command(name = "list", mixinStandardHelpOptions = true, description = {"List a user's agents.",
            "Subagents that agents started are counted but not listed; --all lists them too (with their parent)."})
    static final class ListAgents extends BaseCommand {
        @Mixin
        UserOption owner;

        @Option(names = "--all", description = "Also list the subagents that agents started.")
        boolean all;

        @Override
        int run() {
            String user = owner.user;
            try (Engine engine = root().engine()) {
                var records = engine.store().agents().list(user);
                if (records.isEmpty()) {
                    out().println("User '" + user + "' has no agents; create one with 'engram agent create NAME --model SPEC'.");
                }
                int hidden = 0;
                for (var r : records) {
                    String parent = Json.parse(r.definition()).path("parent_agent_id").asString("");
                    if (!parent.isEmpty() && !all) {
                        hidden++;
                        continue;
                    }
                    MemoryStats stats = engine.store().stats(r.scope());
                    out().printf(Locale.ROOT, "%-24s id=%s  messages=%d  archival=%d  updated=%s%s%n", r.name(),
                            r.scope().agentId(), stats.messages(), stats.archivalEntries(), r.updatedAt(),
                            parent.isEmpty() ? "" : "  subagent of " + parent);
                }
                if (hidden > 0) {
                    out().println("(and " + hidden + (hidden == 1 ? " subagent" : " subagents")
                            + " started by these agents; --all lists them)");
                }
            }
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Show an agent's definition, blocks, goals and todos.")
    static final class Show extends BaseCommand {
        @Parameters(paramLabel = "NAME", description = "The agent's name or id.")
        String name;

        @Mixin
        UserOption owner;

        @Override
        int run() {
            String user = owner.user;
            try (Engine engine = root().engine()) {
                Scope scope = scope(engine, user, name);
                var record = engine.store().agents().get(scope).orElseThrow();
                out().println(Json.pretty(record.definition()));
                for (Block b : engine.store().blocks().list(scope)) {
                    out().printf(Locale.ROOT, "block %s (%d/%d, %s): %s%n", b.label(), b.size(), b.limit(),
                            b.permission().name().toLowerCase(Locale.ROOT), TranscriptPrinter.compact(b.value()));
                }
                WorkLines.print(out(), engine.store(), scope);
            }
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = "Delete an agent's definition (its memory stays in the store under its id).")
    static final class Delete extends BaseCommand {
        @Parameters(paramLabel = "NAME", description = "The agent's name or id.")
        String name;

        @Mixin
        UserOption owner;

        @Override
        int run() {
            String user = owner.user;
            try (Engine engine = root().engine()) {
                Scope scope = scope(engine, user, name);
                engine.runtime().delete(scope.userId(), scope.agentId());
                out().println("Deleted agent '" + name + "' (id " + scope.agentId() + "); its memory remains in the store.");
            }
            return 0;
        }
    }

    /** The file formats {@code agent export} writes. */
    enum Format {
        engram, af
    }

    @Command(name = "export", mixinStandardHelpOptions = true, description = "Write agents to one file: Engram's JSON, "
            + "or Letta's Agent File (--format af, several agents and the blocks they share in one file).")
    static final class Export extends BaseCommand {
        @Parameters(paramLabel = "NAME", arity = "1..*", description = "The agent's name or id (several with --format af).")
        List<String> names;

        @Mixin
        UserOption owner;

        @Option(names = {"-o", "--file"}, paramLabel = "FILE", required = true, description = "Where to write it.")
        Path file;

        @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "engram",
                description = "engram (default) or af (Letta Agent File).")
        Format format;

        @Override
        int run() throws java.io.IOException {
            if (format == Format.engram && names.size() > 1) {
                throw usage("An Engram agent file holds one agent; name one, or use --format af for several");
            }
            try (Engine engine = root().engine()) {
                AgentRuntime runtime = engine.runtime();
                List<Scope> scopes = names.stream().map(n -> scope(engine, owner.user, n)).toList();
                if (format == Format.af) {
                    String json = runtime.exportLettaAgentFile(owner.user, scopes.stream().map(Scope::agentId).toList());
                    Path parent = file.toAbsolutePath().getParent();
                    if (parent != null) {
                        java.nio.file.Files.createDirectories(parent);
                    }
                    java.nio.file.Files.writeString(file, json);
                } else {
                    runtime.exportAgent(scopes.getFirst().userId(), scopes.getFirst().agentId(), file);
                }
                out().println("Exported " + (names.size() == 1 ? "agent '" + names.getFirst() + "'" : names.size() + " agents")
                        + " to " + file.toAbsolutePath() + ".");
            }
            return 0;
        }
    }

    @Command(name = "import", mixinStandardHelpOptions = true, description = "Import an agent file: Engram's own, or a "
            + "Letta Agent File (.af, every agent in it).")
    static final class Import extends BaseCommand {
        @Parameters(paramLabel = "FILE", description = "An agent file written by 'engram agent export', or a Letta .af file.")
        Path file;

        @Option(names = "--user", paramLabel = "ID", defaultValue = "local",
                description = "Import for this user (default ${DEFAULT-VALUE}); never the user the file names.")
        String user;

        @Option(names = "--id", paramLabel = "ID", description = "Import under this agent id; default the file's.")
        String id;

        @Option(names = "--model", paramLabel = "SPEC", description = "Run it (and its sleep-time companion) on this model "
                + "instead of the file's; required when the file names an endpoint or script of its own.")
        String model;

        @Override
        int run() {
            String json;
            try {
                json = java.nio.file.Files.readString(file);
            } catch (java.io.IOException e) {
                throw new IllegalStateException("Cannot read agent file " + file + ": " + (e instanceof java.nio.file.NoSuchFileException
                        ? "no such file" : e.getMessage()));
            }
            try (Engine engine = root().engine()) {
                // An import never grants: what the file asked beyond the defaults is dropped, and said here.
                AgentImport options = AgentImport.json(json, file.toString()).user(user);
                options = id == null ? options : options.agentId(id);
                AgentFileImport imported = engine.runtime().importAgentFile(model == null ? options : options.model(model));
                imported.warnings().forEach(w -> err().println("engram: warning: " + w));
                imported.dropped().forEach(d -> err().println("engram: dropped: " + d));
                for (Agent agent : imported.agents()) {
                    out().println("Imported agent '" + agent.name() + "' (id " + agent.id() + ") for user '" + agent.userId()
                            + "' on " + agent.definition().model() + ".");
                }
            }
            return 0;
        }
    }
}

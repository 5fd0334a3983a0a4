package dev.engram.cli;

import dev.engram.memory.Block;
import dev.engram.memory.BlockStore;
import dev.engram.memory.BlockVersion;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NotFoundException;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.Scope;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram block list|show|set|append|history|share|unshare}. */
@Command(name = "block", mixinStandardHelpOptions = true, description = "Read and edit an agent's core memory blocks.",
        subcommands = {BlockCommands.ListBlocks.class, BlockCommands.Show.class, BlockCommands.Set.class,
                BlockCommands.Append.class, BlockCommands.History.class, BlockCommands.Share.class, BlockCommands.Unshare.class})
final class BlockCommands extends GroupCommand {

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the agent's blocks with their usage.")
    static final class ListBlocks extends BaseCommand {
        @Mixin
        ScopeOptions scope;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                for (Block b : engine.store().blocks().list(scope(engine, scope.user, scope.agent))) {
                    out().printf(Locale.ROOT, "%-16s %5d/%-5d %-10s v%d  %s%n", b.label(), b.size(), b.limit(),
                            b.permission().name().toLowerCase(Locale.ROOT), b.version(), b.description());
                }
            }
            return 0;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Print one block's value.")
    static final class Show extends BaseCommand {
        @Parameters(paramLabel = "LABEL")
        String label;

        @Mixin
        ScopeOptions scope;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                Block b = engine.store().blocks().get(s, label).orElseThrow(() -> noBlock(s, label));
                out().println(b.value());
            }
            return 0;
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true, description = "Replace a block's value, creating the block if needed.")
    static final class Set extends BaseCommand {
        @Parameters(index = "0", paramLabel = "LABEL")
        String label;

        @Parameters(index = "1", paramLabel = "VALUE")
        String value;

        @Mixin
        ScopeOptions scope;

        @Option(names = "--limit", paramLabel = "CHARS", description = "For a new block; default 5000.")
        Integer limit;

        @Option(names = "--description", paramLabel = "TEXT", description = "For a new block.")
        String description;

        @Option(names = "--permission", paramLabel = "PERMISSION",
                description = "For a new block: read_only, partner, human, append, read_write (default) or admin.")
        dev.engram.memory.MemoryPermission permission;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                BlockStore blocks = engine.store().blocks();
                Block b;
                if (blocks.get(s, label).isPresent()) {
                    b = blocks.replace(s, label, value, BlockStore.ANY_VERSION);
                } else {
                    NewBlock.Builder nb = NewBlock.builder(label).value(value);
                    if (limit != null) {
                        nb.limit(limit);
                    }
                    if (description != null) {
                        nb.description(description);
                    }
                    if (permission != null) {
                        nb.permission(permission);
                    }
                    b = blocks.create(s, nb.build());
                }
                out().printf(Locale.ROOT, "Block '%s' is now version %d (%d/%d characters).%n", label, b.version(), b.size(), b.limit());
            }
            return 0;
        }
    }

    @Command(name = "append", mixinStandardHelpOptions = true, description = "Add a line at the end of a block.")
    static final class Append extends BaseCommand {
        @Parameters(index = "0", paramLabel = "LABEL")
        String label;

        @Parameters(index = "1", paramLabel = "TEXT")
        String text;

        @Mixin
        ScopeOptions scope;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                Block current = engine.store().blocks().get(s, label).orElseThrow(() -> noBlock(s, label));
                String line = current.value().isEmpty() ? text : "\n" + text;
                Block b = engine.store().blocks().append(s, label, line, current.version());
                out().printf(Locale.ROOT, "Block '%s' is now version %d (%d/%d characters).%n", label, b.version(), b.size(), b.limit());
            }
            return 0;
        }
    }

    @Command(name = "share", mixinStandardHelpOptions = true, description = "Attach one of the agent's blocks to another agent "
            + "of the same user, with a permission for that agent; its edits are in the other's next prompt.")
    static final class Share extends BaseCommand {
        @Parameters(index = "0", paramLabel = "LABEL")
        String label;

        @Mixin
        ScopeOptions scope;

        @Option(names = "--with", paramLabel = "AGENT", required = true, description = "The agent (name or id) to share it with.")
        String with;

        @Option(names = "--permission", paramLabel = "PERMISSION", defaultValue = "read_only",
                description = "What that agent may do with it: read_only (default), append, read_write, partner, human, admin.")
        String permission;

        @Override
        int run() {
            MemoryPermission p;
            try {
                p = MemoryPermission.valueOf(permission.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw usage("Unknown --permission '" + permission + "'; use read_only, append, read_write, partner, human or admin");
            }
            try (Engine engine = root().engine()) {
                Scope owner = scope(engine, scope.user, scope.agent);
                Scope target = scope(engine, scope.user, with);
                engine.store().blocks().share(owner, label, target.agentId(), p);
                out().printf(Locale.ROOT, "Block '%s' of agent '%s' is shared with agent '%s' (%s).%n", label, scope.agent,
                        with, permission.toLowerCase(Locale.ROOT));
            }
            return 0;
        }
    }

    @Command(name = "unshare", mixinStandardHelpOptions = true, description = "End a share made with 'block share'.")
    static final class Unshare extends BaseCommand {
        @Parameters(index = "0", paramLabel = "LABEL")
        String label;

        @Mixin
        ScopeOptions scope;

        @Option(names = "--with", paramLabel = "AGENT", required = true, description = "The agent (name or id) it is shared with.")
        String with;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope owner = scope(engine, scope.user, scope.agent);
                Scope target = scope(engine, scope.user, with);
                boolean was = engine.store().blocks().unshare(owner, label, target.agentId());
                out().println(was ? "Block '" + label + "' is no longer shared with agent '" + with + "'."
                        : "Block '" + label + "' was not shared with agent '" + with + "'.");
            }
            return 0;
        }
    }

    @Command(name = "history", mixinStandardHelpOptions = true, description = "Every version of a block.")
    static final class History extends BaseCommand {
        @Parameters(paramLabel = "LABEL")
        String label;

        @Mixin
        ScopeOptions scope;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                for (BlockVersion v : engine.store().blocks().history(scope(engine, scope.user, scope.agent), label)) {
                    out().printf(Locale.ROOT, "v%-4d %s  %-10s %s%n", v.version(), v.committedAt(),
                            v.operation(), TranscriptPrinter.compact(v.value()));
                }
            }
            return 0;
        }
    }

    static NotFoundException noBlock(Scope scope, String label) {
        return new NotFoundException("Agent '" + scope.agentId() + "' has no block labelled '" + label + "'");
    }
}

package dev.engram.cli;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Archive;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NotFoundException;
import dev.engram.memory.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code engram archive create|list|insert|attach|detach|rm}: a user's archives, collections of passages that several of
 * the user's agents search beside their own archival memory. An archive is named by its id or, when no other archive
 * of the user has it, its name.
 */
@Command(name = "archive", mixinStandardHelpOptions = true, description = "Archives: passages shared by several agents.",
        subcommands = {ArchiveCommands.Create.class, ArchiveCommands.ListArchives.class, ArchiveCommands.Insert.class,
                ArchiveCommands.Attach.class, ArchiveCommands.Detach.class, ArchiveCommands.Remove.class})
final class ArchiveCommands extends GroupCommand {

    /** The user's archive that {@code ref} names, by id or by a name no other archive of the user has. */
    static Archive archive(MemoryStore store, String user, String ref) {
        Optional<Archive> byId = ref.startsWith(Archive.ID_PREFIX) ? store.archives().get(user, ref) : Optional.empty();
        if (byId.isPresent()) {
            return byId.get();
        }
        List<Archive> named = store.archives().list(user).stream().filter(a -> a.name().equals(ref)).toList();
        if (named.size() > 1) {
            throw new IllegalArgumentException("User '" + user + "' has " + named.size() + " archives named '" + ref + "' (ids "
                    + String.join(", ", named.stream().map(Archive::id).toList()) + "); name one by its id");
        }
        if (named.isEmpty()) {
            throw new NotFoundException("User '" + user + "' has no archive '" + ref + "'; list them with 'engram archive list "
                    + "--user " + user + "'");
        }
        return named.getFirst();
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create an archive.")
    static final class Create extends BaseCommand {
        @Parameters(paramLabel = "NAME")
        String name;

        @Option(names = "--description", paramLabel = "TEXT", description = "What it holds.")
        String description = "";

        @Mixin
        UserOption user;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Archive a = engine.store().archives().create(user.user, name, description);
                out().println("Created " + a.id() + " (" + a.name() + ").");
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the user's archives, oldest first, with the "
            + "agents they are attached to.")
    static final class ListArchives extends BaseCommand {
        @Mixin
        UserOption user;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                MemoryStore store = engine.store();
                List<Archive> archives = store.archives().list(user.user);
                if (archives.isEmpty()) {
                    out().println("No archives.");
                }
                for (Archive a : archives) {
                    List<String> agents = new ArrayList<>();
                    for (String id : store.archives().agents(user.user, a.id())) {
                        agents.add(store.agents().get(Scope.of(user.user, id)).map(r -> r.name()).orElse(id));
                    }
                    out().printf(Locale.ROOT, "%s  %s  %d passages  agents: %s%s%n", a.id(), a.name(),
                            store.archival().count(a.scope()), agents.isEmpty() ? "none" : String.join(", ", agents),
                            a.description().isEmpty() ? "" : "  " + TranscriptPrinter.compact(a.description()));
                }
            }
            return 0;
        }
    }

    @Command(name = "insert", mixinStandardHelpOptions = true, description = "Add a passage to an archive.")
    static final class Insert extends BaseCommand {
        @Parameters(index = "0", paramLabel = "ARCHIVE", description = "Its id, or its name.")
        String archive;

        @Parameters(index = "1", paramLabel = "TEXT")
        String text;

        @Option(names = "--tag", paramLabel = "TAG", description = "A tag (repeatable).")
        List<String> tags = new ArrayList<>();

        @Option(names = "--metadata", paramLabel = "JSON", description = "Fields a search can filter on, as a JSON object.")
        String metadata;

        @Mixin
        UserOption user;

        @Override
        int run() {
            Metadata meta = NotesCommands.metadata(this, metadata);
            try (Engine engine = root().engine()) {
                Archive a = archive(engine.store(), user.user, archive);
                ArchivalEntry e = engine.store().archives().insert(user.user, a.id(),
                        List.of(new NewArchivalEntry(Optional.empty(), text, tags, meta))).getFirst();
                out().println("Inserted " + e.id() + " into " + a.name() + ".");
            }
            return 0;
        }
    }

    @Command(name = "attach", mixinStandardHelpOptions = true, description = "Let an agent's archival search cover an archive.")
    static final class Attach extends BaseCommand {
        @Parameters(paramLabel = "ARCHIVE", description = "Its id, or its name.")
        String archive;

        @Mixin
        ScopeOptions scope;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                Archive a = archive(engine.store(), scope.user, archive);
                boolean now = engine.store().archives().attach(s, a.id());
                out().println((now ? "Attached " : "Already attached: ") + a.name() + " to " + scope.agent + ".");
            }
            return 0;
        }
    }

    @Command(name = "detach", mixinStandardHelpOptions = true, description = "Take an archive out of an agent's search.")
    static final class Detach extends BaseCommand {
        @Parameters(paramLabel = "ARCHIVE", description = "Its id, or its name.")
        String archive;

        @Mixin
        ScopeOptions scope;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                Archive a = archive(engine.store(), scope.user, archive);
                if (!engine.store().archives().detach(s, a.id())) {
                    throw new NotFoundException("Archive " + a.name() + " is not attached to " + scope.agent);
                }
                out().println("Detached " + a.name() + " from " + scope.agent + ".");
            }
            return 0;
        }
    }

    @Command(name = "rm", aliases = "delete", mixinStandardHelpOptions = true,
            description = "Delete an archive with its passages (every agent stops finding them).")
    static final class Remove extends BaseCommand {
        @Parameters(paramLabel = "ARCHIVE", description = "Its id, or its name.")
        String archive;

        @Mixin
        UserOption user;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Archive a = archive(engine.store(), user.user, archive);
                engine.store().archives().delete(user.user, a.id());
                out().println("Deleted " + a.id() + " (" + a.name() + ").");
            }
            return 0;
        }
    }
}

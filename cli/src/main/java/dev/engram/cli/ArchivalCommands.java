package dev.engram.cli;

import dev.engram.memory.ArchivalEntry;
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

/** {@code engram archival insert|list|supersede|history|delete}. */
@Command(name = "archival", mixinStandardHelpOptions = true, description = "An agent's archival memory.",
        subcommands = {ArchivalCommands.Insert.class, ArchivalCommands.ListEntries.class, ArchivalCommands.Supersede.class,
                ArchivalCommands.History.class, ArchivalCommands.Delete.class})
final class ArchivalCommands extends GroupCommand {

    @Command(name = "insert", mixinStandardHelpOptions = true, description = "File a fact or document.")
    static final class Insert extends BaseCommand {
        @Parameters(paramLabel = "TEXT")
        String text;

        @Mixin
        ScopeOptions scope;

        @Option(names = "--label", paramLabel = "LABEL", description = "A label unique among the agent's entries.")
        String label;

        @Option(names = "--tag", paramLabel = "TAG", description = "A tag (repeatable).")
        List<String> tags = new ArrayList<>();

        @Option(names = "--metadata", paramLabel = "JSON", description = "Fields a search can filter on, as a JSON object.")
        String metadata;

        @Override
        int run() {
            Metadata meta = NotesCommands.metadata(this, metadata);
            try (Engine engine = root().engine()) {
                ArchivalEntry e = engine.store().archival().insert(scope(engine, scope.user, scope.agent),
                        new NewArchivalEntry(Optional.ofNullable(label), text, tags, meta));
                out().println("Inserted " + e.id() + ".");
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List entries, newest first.")
    static final class ListEntries extends BaseCommand {
        @Mixin
        ScopeOptions scope;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "20", description = "Default ${DEFAULT-VALUE}.")
        int limit;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                for (ArchivalEntry e : engine.store().archival().list(s, 0, limit)) {
                    out().printf(Locale.ROOT, "%s  %s%s  %s%n", e.id(), e.label().map(l -> "[" + l + "] ").orElse(""),
                            e.tags().isEmpty() ? "" : e.tags() + " ", TranscriptPrinter.compact(e.content()));
                }
            }
            return 0;
        }
    }

    @Command(name = "supersede", mixinStandardHelpOptions = true, description = {"Record that an entry's fact changed: a "
            + "new entry replaces it, and the old one is kept, with the time it stopped holding, in the entry's history."})
    static final class Supersede extends BaseCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "TEXT")
        String text;

        @Mixin
        ScopeOptions scope;

        @Option(names = "--tag", paramLabel = "TAG", description = "The new entry's tag (repeatable); default the old entry's.")
        List<String> tags;

        @Option(names = "--metadata", paramLabel = "JSON", description = "The new entry's metadata; default the old entry's.")
        String metadata;

        @Override
        int run() {
            Metadata meta = metadata == null ? null : NotesCommands.metadata(this, metadata);
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                ArchivalEntry old = engine.store().archival().get(s, id).orElseThrow(() -> new NotFoundException(
                        "There is no archival entry '" + id + "' for this agent"));
                ArchivalEntry e = engine.store().archival().supersede(s, id, new NewArchivalEntry(Optional.empty(), text,
                        tags != null ? tags : old.tags(), meta != null ? meta : old.metadata()));
                out().println("Inserted " + e.id() + "; it supersedes " + id + ".");
            }
            return 0;
        }
    }

    @Command(name = "history", mixinStandardHelpOptions = true, description = "An entry's versions, oldest first.")
    static final class History extends BaseCommand {
        @Parameters(paramLabel = "ID")
        String id;

        @Mixin
        ScopeOptions scope;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                for (ArchivalEntry e : engine.store().archival().history(scope(engine, scope.user, scope.agent), id)) {
                    out().printf(Locale.ROOT, "%s  %s .. %s  %s%n", e.id(), e.validFrom(), e.validTo().map(Object::toString)
                            .orElse("now"), TranscriptPrinter.compact(e.content()));
                }
            }
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete an entry by id.")
    static final class Delete extends BaseCommand {
        @Parameters(paramLabel = "ID")
        String id;

        @Mixin
        ScopeOptions scope;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                if (!engine.store().archival().delete(scope(engine, scope.user, scope.agent), id)) {
                    throw new NotFoundException("There is no archival entry '" + id + "' for this agent");
                }
                out().println("Deleted " + id + ".");
            }
            return 0;
        }
    }
}

package dev.engram.cli;

import dev.engram.memory.Metadata;
import dev.engram.memory.Note;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram notes save|list|update|delete}. */
@Command(name = "notes", mixinStandardHelpOptions = true, description = "A user's notes.",
        subcommands = {NotesCommands.Save.class, NotesCommands.ListNotes.class, NotesCommands.Update.class,
                NotesCommands.Supersede.class, NotesCommands.History.class, NotesCommands.Delete.class})
final class NotesCommands extends GroupCommand {

    abstract static class UserCommand extends BaseCommand {
        @picocli.CommandLine.Mixin
        UserOption owner;
    }

    @Command(name = "save", mixinStandardHelpOptions = true, description = "Save a note.")
    static final class Save extends UserCommand {
        @Parameters(paramLabel = "TEXT")
        String text;

        @Option(names = "--metadata", paramLabel = "JSON", description = "Fields a search can filter on, as a JSON object: "
                + "'{\"project\": \"apollo\", \"priority\": 2}'.")
        String metadata;

        @Override
        int run() {
            Metadata meta = metadata(this, metadata);
            try (Engine engine = root().engine()) {
                out().println("Saved " + engine.store().notes().save(owner.user, text, meta).id() + ".");
            }
            return 0;
        }
    }

    /** The {@code --metadata} option's value, or a usage error that says what is wrong with it. */
    static Metadata metadata(BaseCommand command, String json) {
        if (json == null) {
            return Metadata.empty();
        }
        try {
            return Metadata.parse(json);
        } catch (IllegalArgumentException e) {
            throw command.usage("--metadata: " + e.getMessage());
        }
    }

    @Command(name = "supersede", mixinStandardHelpOptions = true, description = {"Record that a note's fact changed: a new "
            + "note replaces it, and the old one is kept, with the time it stopped holding, in the note's history."})
    static final class Supersede extends UserCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "TEXT")
        String text;

        @Option(names = "--metadata", paramLabel = "JSON", description = "The new note's metadata; default the old note's.")
        String metadata;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Metadata meta = metadata == null ? engine.store().notes().get(owner.user, id).map(Note::metadata)
                        .orElse(Metadata.empty()) : metadata(this, metadata);
                Note n = engine.store().notes().supersede(owner.user, id, text, meta);
                out().println("Saved " + n.id() + "; it supersedes " + id + ".");
            }
            return 0;
        }
    }

    @Command(name = "history", mixinStandardHelpOptions = true, description = "A note's versions, oldest first.")
    static final class History extends UserCommand {
        @Parameters(paramLabel = "ID")
        String id;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                for (Note n : engine.store().notes().history(owner.user, id)) {
                    out().printf(Locale.ROOT, "%s  %s .. %s  %s%n", n.id(), n.validFrom(), n.validTo().map(Object::toString)
                            .orElse("now"), TranscriptPrinter.compact(n.content()));
                }
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List notes, newest first.")
    static final class ListNotes extends UserCommand {
        @Option(names = "--limit", paramLabel = "N", defaultValue = "20", description = "Default ${DEFAULT-VALUE}.")
        int limit;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                for (Note n : engine.store().notes().list(owner.user, 0, limit)) {
                    out().printf(Locale.ROOT, "%s  %s  %s%n", n.id(), n.updatedAt(), TranscriptPrinter.compact(n.content()));
                }
            }
            return 0;
        }
    }

    @Command(name = "update", mixinStandardHelpOptions = true, description = "Replace a note's text.")
    static final class Update extends UserCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "TEXT")
        String text;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                engine.store().notes().update(owner.user, id, text);
                out().println("Updated " + id + ".");
            }
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a note.")
    static final class Delete extends UserCommand {
        @Parameters(paramLabel = "ID")
        String id;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                if (!engine.store().notes().delete(owner.user, id)) {
                    throw new dev.engram.memory.NotFoundException("There is no note '" + id + "' for user '" + owner.user + "'");
                }
                out().println("Deleted " + id + ".");
            }
            return 0;
        }
    }
}

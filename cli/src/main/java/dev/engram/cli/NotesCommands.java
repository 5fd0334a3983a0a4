package dev.engram.cli;

import dev.engram.memory.Note;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram notes save|list|update|delete}. */
@Command(name = "notes", mixinStandardHelpOptions = true, description = "A user's notes.",
        subcommands = {NotesCommands.Save.class, NotesCommands.ListNotes.class, NotesCommands.Update.class,
                NotesCommands.Delete.class})
final class NotesCommands extends GroupCommand {

    abstract static class UserCommand extends BaseCommand {
        @picocli.CommandLine.Mixin
        UserOption owner;
    }

    @Command(name = "save", mixinStandardHelpOptions = true, description = "Save a note.")
    static final class Save extends UserCommand {
        @Parameters(paramLabel = "TEXT")
        String text;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                out().println("Saved " + engine.store().notes().save(owner.user, text).id() + ".");
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

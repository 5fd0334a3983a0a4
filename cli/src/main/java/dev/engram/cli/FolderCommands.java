package dev.engram.cli;

import dev.engram.memory.AgentFile;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.Metadata;
import dev.engram.memory.Scope;
import dev.engram.memory.TextChunker;
import dev.engram.tools.FolderUploads;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code engram folder create|upload|list|rm|attach|detach}: a user's folders of documents, as the server's
 * {@code /v1/folders}, and attaching them to the user's agents.
 */
@Command(name = "folder", mixinStandardHelpOptions = true, description = {"A user's folders of documents: text, Markdown, "
        + "source code, JSON, CSV, HTML and PDF files, chunked into passages that 'engram search --folder NAME' finds."},
        subcommands = {FolderCommands.Create.class, FolderCommands.Upload.class, FolderCommands.ListFolders.class,
                FolderCommands.Remove.class, FolderCommands.Attach.class, FolderCommands.Detach.class})
final class FolderCommands extends GroupCommand {

    /** The user's folder named (or with the id) {@code nameOrId}; a usage error naming the user's folders otherwise. */
    static Folder find(BaseCommand command, Engine engine, String user, String nameOrId) {
        return engine.store().folders().byName(user, nameOrId).or(() -> engine.store().folders().get(user, nameOrId))
                .orElseThrow(() -> command.usage("User '" + user + "' has no folder '" + nameOrId + "'"
                        + (engine.store().folders().list(user).isEmpty() ? "; create one with 'engram folder create NAME'"
                        : "; the folders are " + String.join(", ", engine.store().folders().list(user).stream()
                        .map(Folder::name).toList()))));
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a folder.")
    static final class Create extends BaseCommand {
        @Parameters(paramLabel = "NAME")
        String name;

        @Mixin
        UserOption owner;

        @Option(names = "--description", paramLabel = "TEXT", defaultValue = "", description = "What it holds.")
        String description;

        @Option(names = "--instructions", paramLabel = "TEXT", defaultValue = "", description = "How an agent should use its files.")
        String instructions;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Folder f = engine.store().folders().create(owner.user, name, description, instructions, Metadata.empty());
                out().println("Created folder '" + f.name() + "' (" + f.id() + ").");
            }
            return 0;
        }
    }

    @Command(name = "upload", mixinStandardHelpOptions = true, description = {"Upload files into a folder: each is parsed, "
            + "chunked, embedded and indexed (directories are walked for files of the accepted formats)."})
    static final class Upload extends BaseCommand {
        @Parameters(index = "0", paramLabel = "FOLDER", description = "The folder, by name or id.")
        String folder;

        @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH", description = "Files or directories.")
        List<Path> paths;

        @Mixin
        UserOption owner;

        @Option(names = "--chunk-chars", paramLabel = "N", defaultValue = "1500",
                description = "The largest passage, in characters; default ${DEFAULT-VALUE}.")
        int chunkChars;

        @Option(names = "--duplicates", paramLabel = "HOW", defaultValue = "suffix", description = "A file already in the "
                + "folder: suffix (keep both), error, skip or replace; default ${DEFAULT-VALUE}.")
        String duplicates;

        @Override
        int run() throws IOException {
            return upload(this, owner.user, folder, false, paths, chunkChars, duplicates, "");
        }
    }

    /** Uploads {@code paths} into the user's folder (created first when {@code create}); prints the summary. */
    static int upload(BaseCommand command, String user, String folderName, boolean create, List<Path> paths, int chunkChars,
            String duplicates, String verb) throws IOException {
        if (chunkChars < TextChunker.MIN_CHARS || chunkChars > TextChunker.MAX_CHARS) {
            throw command.usage("--chunk-chars must be between " + TextChunker.MIN_CHARS + " and " + TextChunker.MAX_CHARS
                    + ", got " + chunkChars);
        }
        FolderUploads.Duplicates handling;
        int[] others = {0};
        List<Path> files;
        try {
            handling = FolderUploads.Duplicates.of(duplicates);
            files = FolderUploadRun.files(paths, others);
        } catch (IllegalArgumentException e) {
            throw command.usage(e.getMessage());
        }
        try (Engine engine = command.root().engine();
                FolderUploads uploads = FolderUploads.create(engine.store(), engine.search(), chunkChars,
                        agent -> engine.runtime().fileLimits(agent))) {
            Folder folder = create ? engine.store().folders().byName(user, folderName).orElseGet(() ->
                    engine.store().folders().create(user, folderName, "", "", Metadata.empty()))
                    : find(command, engine, user, folderName);
            FolderUploadRun.Summary s = FolderUploadRun.upload(uploads, user, folder, files, handling, command.err());
            command.out().printf(Locale.ROOT, "%s %d chunks (%d characters) from %d files into folder '%s' in %.1f s "
                    + "(%.2f MB/s)%s%s%s.%n", verb.isEmpty() ? "Uploaded" : verb, s.chunks(), s.characters(),
                    s.files() - s.failed() - s.skipped(), folder.name(), s.seconds(), s.bytes() / 1e6 / Math.max(s.seconds(), 1e-3),
                    s.failed() > 0 ? "; " + s.failed() + " failed" : "", s.skipped() > 0 ? "; skipped " + s.skipped() + " already there" : "",
                    others[0] > 0 ? "; skipped " + others[0] + " other files" : "");
            return s.failed() > 0 ? 1 : 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "The user's folders, or the files of one.")
    static final class ListFolders extends BaseCommand {
        @Parameters(arity = "0..1", paramLabel = "FOLDER", description = "A folder whose files to list.")
        String folder;

        @Mixin
        UserOption owner;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                if (folder == null) {
                    List<Folder> folders = engine.store().folders().list(owner.user);
                    if (folders.isEmpty()) {
                        out().println("No folders.");
                    }
                    for (Folder f : folders) {
                        List<FolderFile> files = engine.store().folders().files(owner.user, f.id());
                        out().printf(Locale.ROOT, "%-24s %s  %d files, %d bytes%n", f.name(), f.id(), files.size(),
                                files.stream().mapToLong(FolderFile::sizeBytes).sum());
                    }
                } else {
                    Folder f = find(this, engine, owner.user, folder);
                    for (FolderFile file : engine.store().folders().files(owner.user, f.id())) {
                        out().printf(Locale.ROOT, "%-40s %-10s %d/%d chunks  %d bytes%s%n", file.name(), file.status().wire(),
                                file.chunksEmbedded(), file.totalChunks(), file.sizeBytes(),
                                file.error().isEmpty() ? "" : "  " + file.error());
                    }
                }
            }
            return 0;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, description = "Delete a folder with its files, or one file of it.")
    static final class Remove extends BaseCommand {
        @Parameters(paramLabel = "FOLDER")
        String folder;

        @Option(names = "--file", paramLabel = "NAME", description = "Only this file (its name in the folder, or its id).")
        String file;

        @Mixin
        UserOption owner;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Folder f = find(this, engine, owner.user, folder);
                if (file == null) {
                    engine.store().folders().delete(owner.user, f.id());
                    out().println("Deleted folder '" + f.name() + "' with its files.");
                } else {
                    FolderFile target = engine.store().folders().files(owner.user, f.id()).stream()
                            .filter(x -> x.id().equals(file) || x.name().equals(file) || x.name().equals(f.name() + "/" + file))
                            .findFirst().orElseThrow(() -> usage("Folder '" + f.name() + "' has no file '" + file + "'"));
                    engine.store().folders().deleteFile(owner.user, target.id());
                    out().println("Deleted '" + target.name() + "'.");
                }
            }
            return 0;
        }
    }

    @Command(name = "attach", mixinStandardHelpOptions = true, description = {"Attach a folder to an agent, as Letta does: "
            + "its newest files open in the agent's prompt and the agent gets open_files, grep_files and "
            + "semantic_search_files."})
    static final class Attach extends BaseCommand {
        @Parameters(paramLabel = "FOLDER", description = "The folder, by name or id.")
        String folder;

        @Option(names = "--agent", required = true, paramLabel = "NAME", description = "The agent, by name or id.")
        String agent;

        @Mixin
        UserOption owner;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Folder f = find(this, engine, owner.user, folder);
                Scope scope = scope(engine, owner.user, agent);
                engine.runtime().attachFolder(owner.user, scope.agentId(), f.id());
                long open = engine.store().folders().agents().view(scope).stream().filter(AgentFile::open).count();
                out().println("Attached folder '" + f.name() + "' to agent '" + agent + "' (" + open + " files open).");
            }
            return 0;
        }
    }

    @Command(name = "detach", mixinStandardHelpOptions = true, description = "Detach a folder from an agent: its files leave "
            + "the agent's prompt (and with the last folder, the file tools).")
    static final class Detach extends BaseCommand {
        @Parameters(paramLabel = "FOLDER", description = "The folder, by name or id.")
        String folder;

        @Option(names = "--agent", required = true, paramLabel = "NAME", description = "The agent, by name or id.")
        String agent;

        @Mixin
        UserOption owner;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Folder f = find(this, engine, owner.user, folder);
                Scope scope = scope(engine, owner.user, agent);
                engine.runtime().detachFolder(owner.user, scope.agentId(), f.id());
                out().println("Detached folder '" + f.name() + "' from agent '" + agent + "'.");
            }
            return 0;
        }
    }
}

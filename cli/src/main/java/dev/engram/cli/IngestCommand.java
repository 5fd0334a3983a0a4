package dev.engram.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram ingest PATH...}: an upload of files into a folder of the user's, as {@code engram folder upload} does. */
@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = {"Upload files into a folder of the user's, created when missing: --folder, else the agent's name "
                + "(--agent), else 'documents'. Each file (text, Markdown, source code, JSON, CSV, HTML, PDF; directories "
                + "are walked) is parsed, chunked, embedded and indexed; find its passages with "
                + "'engram search QUERY --folder NAME'. The same as 'engram folder upload'."})
final class IngestCommand extends BaseCommand {
    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Files or directories.")
    List<Path> paths;

    @Option(names = "--user", paramLabel = "ID", defaultValue = "local", description = "The user; default ${DEFAULT-VALUE}.")
    String user;

    @Option(names = "--agent", paramLabel = "NAME", description = "An agent of the user (by name or id) whose name the folder takes.")
    String agent;

    @Option(names = "--folder", paramLabel = "NAME", description = "The folder; default the agent's name, else 'documents'.")
    String folder;

    @Option(names = "--chunk-chars", paramLabel = "N", defaultValue = "1500",
            description = "The largest chunk, in characters; default ${DEFAULT-VALUE}.")
    int chunkChars;

    @Override
    int run() throws IOException {
        String name = folder;
        if (name == null && agent != null) {
            try (Engine engine = root().engine()) {
                name = engine.store().agents().get(scope(engine, user, agent)).orElseThrow().name();
            }
        }
        return FolderCommands.upload(this, user, name == null ? "documents" : name, true, paths, chunkChars, "suffix",
                "Ingested");
    }
}

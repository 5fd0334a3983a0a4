package dev.engram.cli;

import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram ingest PATH...}: text and Markdown files, chunked into an agent's archival memory. */
@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = {"Chunk text and Markdown files (.txt, .md, .markdown; directories are walked) into an agent's "
                + "archival memory, then index them."})
final class IngestCommand extends BaseCommand {
    @Parameters(paramLabel = "PATH", arity = "1..*", description = "Files or directories.")
    List<Path> paths;

    @Mixin
    ScopeOptions scope;

    @Option(names = "--chunk-chars", paramLabel = "N", defaultValue = "1500",
            description = "The largest chunk, in characters; default ${DEFAULT-VALUE}.")
    int chunkChars;

    @Override
    int run() throws IOException {
        if (chunkChars < 200 || chunkChars > 20_000) {
            throw usage("--chunk-chars must be between 200 and 20000, got " + chunkChars);
        }
        List<Path> files = new ArrayList<>();
        int skipped = 0;
        for (Path p : paths) {
            if (!Files.exists(p)) {
                throw usage("No such file or directory: " + p);
            }
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
                        if (isText(f)) {
                            files.add(f);
                        } else {
                            skipped++;
                        }
                    }
                }
            } else if (isText(p)) {
                files.add(p);
            } else {
                throw usage("Not a text or Markdown file (.txt, .md, .markdown): " + p);
            }
        }
        long start = System.nanoTime();
        int chunks = 0;
        long chars = 0;
        try (Engine engine = root().engine()) {
            Scope s = scope(engine, scope.user, scope.agent);
            ProgressBar bar = new ProgressBar(err(), "ingest");
            int done = 0;
            for (Path f : files) {
                String text;
                try {
                    text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(f))).toString();
                } catch (CharacterCodingException e) {
                    err().println();
                    err().println("engram: skipped " + f + " (not UTF-8 text).");
                    skipped++;
                    bar.update(++done, files.size());
                    continue;
                }
                List<String> pieces = dev.engram.memory.TextChunker.chunk(text, chunkChars);
                String source = f.getFileName().toString();
                List<NewArchivalEntry> entries = new ArrayList<>();
                for (int i = 0; i < pieces.size(); i++) {
                    entries.add(new NewArchivalEntry(Optional.empty(), "[" + source + " " + (i + 1) + "/" + pieces.size() + "] "
                            + pieces.get(i), List.of("ingest")));
                }
                if (!entries.isEmpty()) {
                    engine.store().archival().insertAll(s, entries);
                }
                chunks += entries.size();
                chars += text.length();
                bar.update(++done, files.size());
            }
            bar.done();
            engine.search().awaitIndexed();
        }
        out().printf(Locale.ROOT, "Ingested %d chunks (%d characters) from %d files into agent '%s' in %.1f s%s.%n", chunks,
                chars, files.size(), scope.agent, (System.nanoTime() - start) / 1e9,
                skipped > 0 ? "; skipped " + skipped + " other files" : "");
        return 0;
    }

    private static boolean isText(Path p) {
        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".txt") || n.endsWith(".md") || n.endsWith(".markdown");
    }
}

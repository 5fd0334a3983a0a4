package dev.engram.cli;

import picocli.CommandLine.Command;

/** {@code engram reindex}: rebuilds the search index from the store. */
@Command(name = "reindex", mixinStandardHelpOptions = true, description = "Rebuild the search index from the store.")
final class ReindexCommand extends BaseCommand {
    @Override
    int run() {
        try (Engine engine = root().engine()) {
            long start = System.nanoTime();
            ProgressBar bar = new ProgressBar(err(), "reindex");
            engine.search().reindex(bar::update);
            bar.done();
            out().printf(java.util.Locale.ROOT, "Reindexed %s in %.1f s.%n", bar.summary(), (System.nanoTime() - start) / 1e9);
        }
        return 0;
    }
}

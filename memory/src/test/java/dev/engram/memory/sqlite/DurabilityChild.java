package dev.engram.memory.sqlite;

import dev.engram.memory.BlockStore;
import dev.engram.memory.MemoryLimits;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.memory.SqliteOptions;
import dev.engram.memory.WriterChild;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * The writer process of {@link DurabilityTest}: writes forever, and prints a line for each write
 * after its call has returned (the acknowledgement), until it is killed or its parent dies.
 */
public final class DurabilityChild {
    private DurabilityChild() {
    }

    public static void main(String[] args) {
        WriterChild.exitWhenParentDies();
        Path file = Path.of(args[0]);
        String run = args[1];
        Scope scope = Scope.of("ana", "helper");
        PrintStream out = new PrintStream(System.out, false);
        // The log block grows across every run: give it room beyond the default largest text.
        MemoryStore store = MemoryStore.over(SqliteBackend.open(SqliteOptions.builder(file).build()), Clock.systemUTC(),
                new MemoryLimits(10_000_000));
        if (store.blocks().get(scope, "log").isEmpty()) {
            store.blocks().create(scope, NewBlock.builder("log").limit(10_000_000).build());
        }
        out.println("READY");
        out.flush();
        for (long i = 0; ; i++) {
            String marker = run + "-" + i;
            switch ((int) (i % 4)) {
                case 0 -> {
                    store.blocks().append(scope, "log", "[" + marker + "]", BlockStore.ANY_VERSION);
                    out.println("block " + marker);
                }
                case 1 -> {
                    String id = store.archival().insert(scope, NewArchivalEntry.labelled(marker, "fact " + marker, List.of())).id();
                    out.println("archival " + id);
                }
                case 2 -> out.println("note " + store.notes().save("ana", "note " + marker).id());
                default -> out.println("message " + store.messages().append(scope, NewMessage.user("s", marker)).id());
            }
            out.flush();
        }
    }
}

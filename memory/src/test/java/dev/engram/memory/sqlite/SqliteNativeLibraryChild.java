package dev.engram.memory.sqlite;

import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import dev.engram.memory.SqliteOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The process of {@link SqliteNativeLibraryTest}: asks for the cache, opens a database and reads from it, then prints
 * the library the cache gave ({@code cache PATH} or {@code cache none}), whether that file is mapped into this process
 * (so the driver loaded it), and the blocks read.
 */
public final class SqliteNativeLibraryChild {
    private SqliteNativeLibraryChild() {
    }

    public static void main(String[] args) throws Exception {
        Optional<Path> library = SqliteNativeLibrary.useCache(Path.of(args[0]));
        Scope scope = Scope.of("ana", "helper");
        try (MemoryStore store = MemoryStore.over(SqliteBackend.open(SqliteOptions.builder(Path.of(args[1])).build()))) {
            store.blocks().create(scope, NewBlock.builder("persona").value("hello").build());
            System.out.println("read " + store.blocks().list(scope).size());
        }
        System.out.println("cache " + library.map(Path::toString).orElse("none"));
        String maps = Files.readString(Path.of("/proc/self/maps"));
        System.out.println("mapped " + library.map(l -> maps.contains(l.toString())).orElse(false));
    }
}

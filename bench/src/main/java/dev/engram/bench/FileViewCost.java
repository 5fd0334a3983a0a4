package dev.engram.bench;

import dev.engram.memory.AgentFile;
import dev.engram.memory.AgentFolders;
import dev.engram.memory.FileLimits;
import dev.engram.memory.FileStatus;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What an agent's prompt reads of its attached files each step, the old way and the new, side by side in one run: a
 * SQLite store with one folder of {@code --files} files of {@code --chars} characters each, attached to an agent that
 * keeps {@code --open} of them open; each round reads the agent's files once with their whole texts
 * ({@link AgentFolders#files}, what the prompt and the file tools read before) and once as the prompt shows them
 * ({@link AgentFolders#view}: the open files' texts only), in turns, and prints the median time and the characters read
 * of each. Usage:
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.engram.bench.FileViewCost [--files 200] [--chars 100000] [--open 5] [--rounds 30]
 * </pre>
 */
public final class FileViewCost {
    private FileViewCost() {
    }

    public static void main(String[] args) throws Exception {
        int files = intArg(args, "--files", 200);
        int chars = intArg(args, "--chars", 100_000);
        int open = intArg(args, "--open", 5);
        int rounds = intArg(args, "--rounds", 30);
        Path dir = Files.createTempDirectory("engram-file-view");
        Scope agent = Scope.of("bench", "reader");
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            store.agents().create(agent, "reader", "{}");
            Folder folder = store.folders().create("bench", "docs", "", "", Metadata.empty());
            String line = "The pressure relief valve opens at three bar; call the installer if it rises.\n";
            String text = line.repeat(chars / line.length() + 1).substring(0, chars);
            for (int i = 0; i < files; i++) {
                FolderFile f = store.folders().addFile("bench", folder.id(), "docs/file-" + i + ".txt", "file-" + i + ".txt",
                        "text/plain", chars);
                store.folders().text("bench", f.id(), text, 0);
                store.folders().status("bench", f.id(), FileStatus.COMPLETED);
            }
            AgentFolders agents = store.folders().agents();
            agents.attach(agent, folder.id(), new FileLimits(open, 50_000));
            long[] whole = new long[rounds];
            long[] view = new long[rounds];
            long wholeChars = 0;
            long viewChars = 0;
            for (int r = -3; r < rounds; r++) { // three rounds of warm-up
                long t0 = System.nanoTime();
                List<AgentFile> a = agents.files(agent);
                long t1 = System.nanoTime();
                List<AgentFile> b = agents.view(agent);
                long t2 = System.nanoTime();
                if (r >= 0) {
                    whole[r] = t1 - t0;
                    view[r] = t2 - t1;
                    wholeChars = a.stream().mapToLong(f -> f.file().text().length()).sum();
                    viewChars = b.stream().mapToLong(f -> f.file().text().length()).sum();
                }
            }
            System.out.printf(Locale.ROOT, "%d files of %,d characters, %d open, %d rounds%n", files, chars, open, rounds);
            System.out.printf(Locale.ROOT, "whole texts (before): median %.2f ms, %,d characters read%n", median(whole), wholeChars);
            System.out.printf(Locale.ROOT, "prompt view (now):    median %.2f ms, %,d characters read%n", median(view), viewChars);
        } finally {
            try (var walk = Files.walk(dir)) {
                walk.sorted((x, y) -> y.compareTo(x)).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
    }

    private static int intArg(String[] args, String name, int fallback) {
        List<String> list = new ArrayList<>(List.of(args));
        int i = list.indexOf(name);
        return i >= 0 && i + 1 < list.size() ? Integer.parseInt(list.get(i + 1)) : fallback;
    }
}

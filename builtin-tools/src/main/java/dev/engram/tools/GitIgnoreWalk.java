package dev.engram.tools;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.eclipse.jgit.ignore.IgnoreNode;

/**
 * Walks a workspace directory as git sees it: {@code .git} and whatever the {@code .gitignore} files
 * (of the directory, its subdirectories and its parents up to the workspace root) ignore are skipped,
 * with JGit's rules; symbolic links are not followed. Entries come in name order.
 */
final class GitIgnoreWalk {
    /** The rules of one .gitignore file, and the directory its patterns are relative to. */
    private record Rules(Path dir, IgnoreNode node) {
    }

    private GitIgnoreWalk() {
    }

    /** Every regular file under {@code start}, recursively. */
    static void files(Path root, Path start, Consumer<Path> onFile) throws IOException {
        entries(root, start, true, (p, isDir) -> {
            if (!isDir) {
                onFile.accept(p);
            }
        });
    }

    /** The files and directories under {@code start}: its children, or everything below it when {@code recursive}. */
    static void entries(Path root, Path start, boolean recursive, BiConsumer<Path, Boolean> onEntry) throws IOException {
        Deque<Rules> rules = new ArrayDeque<>();
        List<Path> above = new ArrayList<>();
        for (Path p = start.getParent(); p != null && p.startsWith(root); p = p.getParent()) {
            above.add(0, p);
        }
        for (Path p : above) {
            load(p).ifPresent(rules::push);
        }
        walk(start, rules, recursive, onEntry);
    }

    private static Optional<Rules> load(Path dir) {
        Path file = dir.resolve(".gitignore");
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        IgnoreNode node = new IgnoreNode();
        try (InputStream in = Files.newInputStream(file)) {
            node.parse(in);
            return Optional.of(new Rules(dir, node));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static void walk(Path dir, Deque<Rules> rules, boolean recursive, BiConsumer<Path, Boolean> onEntry)
            throws IOException {
        Optional<Rules> own = load(dir);
        own.ifPresent(rules::push);
        List<Path> children;
        try (Stream<Path> s = Files.list(dir)) {
            children = s.sorted().toList();
        }
        for (Path child : children) {
            if (child.getFileName().toString().equals(".git") || Files.isSymbolicLink(child)) {
                continue;
            }
            boolean isDir = Files.isDirectory(child);
            if (ignored(rules, child, isDir)) {
                continue;
            }
            if (isDir) {
                onEntry.accept(child, true);
                if (recursive) {
                    walk(child, rules, true, onEntry);
                }
            } else if (Files.isRegularFile(child)) {
                onEntry.accept(child, false);
            }
        }
        own.ifPresent(r -> rules.pop());
    }

    /** The deepest .gitignore with an opinion decides, as git does. */
    private static boolean ignored(Deque<Rules> rules, Path path, boolean isDir) {
        for (Rules r : rules) {
            String rel = r.dir().relativize(path).toString().replace('\\', '/');
            IgnoreNode.MatchResult result = r.node().isIgnored(rel, isDir);
            if (result == IgnoreNode.MatchResult.IGNORED) {
                return true;
            }
            if (result == IgnoreNode.MatchResult.NOT_IGNORED) {
                return false;
            }
        }
        return false;
    }
}

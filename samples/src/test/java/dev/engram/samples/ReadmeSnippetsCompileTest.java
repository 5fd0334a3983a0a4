package dev.engram.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code java} example in the project's READMEs (the root's and each module's) compiles against
 * the current code. Each snippet becomes the body of a method that may use {@code store},
 * {@code search}, {@code embedder}, {@code registry}, {@code router} and {@code workspace} as given;
 * a snippet with an ellipsis outside its comments ({@code new MyBackend(...)}) is a sketch and is
 * left out. Whether the examples behave as documented is checked by {@link ReadmeExamplesTest} and
 * the framework's {@code ReadmeExampleTest}.
 */
class ReadmeSnippetsCompileTest {
    private static final Pattern FENCE = Pattern.compile("(?ms)^```java\\n(.*?)^```");
    private static final String HEADER = """
            package readme;

            import com.fasterxml.jackson.annotation.*;
            import dev.engram.agents.*;
            import dev.engram.framework.*;
            import dev.engram.framework.model.*;
            import dev.engram.mcp.*;
            import dev.engram.memory.*;
            import dev.engram.memory.spi.*;
            import dev.engram.memory.postgres.*;
            import dev.engram.server.*;
            import dev.engram.tools.*;
            import java.nio.file.*;
            import java.time.*;
            import java.util.*;

            abstract class %s {
                MemoryStore store;
                MemorySearch search;
                Embedder embedder;
                ToolRegistry registry;
                MessageRouter router;
                Workspace workspace;

                void example() throws Exception {
            """;

    @TempDir
    Path work;

    record Snippet(Path readme, int index, String code) {
        String className() {
            String module = readme.getParent().getFileName().toString().replaceAll("[^A-Za-z0-9]", "_");
            return "Snippet_" + module + "_" + index;
        }
    }

    @Test
    void everyReadmeExampleCompiles() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        assumeTrue(Files.isRegularFile(root.resolve("README.md")) && Files.isDirectory(root.resolve("memory")),
                "skipped: run from the samples module inside the Engram checkout");
        List<Snippet> snippets = new ArrayList<>();
        List<Path> readmes = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> modules = Files.list(root)) {
            modules.map(m -> m.resolve("README.md")).filter(Files::isRegularFile).sorted().forEach(readmes::add);
        }
        for (Path readme : readmes) {
            Matcher m = FENCE.matcher(Files.readString(readme));
            int index = 0;
            while (m.find()) {
                index++;
                String code = m.group(1);
                if (!code.replaceAll("//.*", "").contains("...")) {
                    snippets.add(new Snippet(readme, index, code));
                }
            }
        }
        assertThat(snippets).as("README examples found").hasSizeGreaterThanOrEqualTo(8);

        Path src = Files.createDirectories(work.resolve("readme"));
        List<File> files = new ArrayList<>();
        for (Snippet s : snippets) {
            Path file = src.resolve(s.className() + ".java");
            // A snippet's own imports (a reader copies them) go to the top of the file, on the package's line, and leave
            // blank lines behind, so that line numbers in errors stay the snippet's.
            List<String> imports = new ArrayList<>();
            String body = s.code().lines().map(line -> {
                if (line.startsWith("import ")) {
                    imports.add(line.strip());
                    return "";
                }
                return line;
            }).collect(Collectors.joining("\n", "", "\n"));
            String header = HEADER.formatted(s.className()).replaceFirst("package readme;",
                    Matcher.quoteReplacement("package readme; " + String.join(" ", imports)));
            Files.writeString(file, header + body.indent(8) + "    }\n}\n");
            files.add(file.toFile());
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = compiler.getStandardFileManager(diagnostics, null, null)) {
            List<String> options = List.of("-classpath", System.getProperty("java.class.path"),
                    "-d", Files.createDirectories(work.resolve("classes")).toString(), "-proc:none", "--release", "21");
            compiler.getTask(null, fm, diagnostics, options, null, fm.getJavaFileObjectsFromFiles(files)).call();
        }
        List<String> errors = diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .map(d -> where(d, snippets) + ": " + d.getMessage(null)).toList();
        assertThat(errors).as("compile errors in README examples").isEmpty();
    }

    private static String where(Diagnostic<? extends JavaFileObject> d, List<Snippet> snippets) {
        String name = d.getSource() == null ? "?" : Path.of(d.getSource().toUri()).getFileName().toString().replace(".java", "");
        return snippets.stream().filter(s -> s.className().equals(name)).findFirst()
                .map(s -> s.readme() + " example " + s.index()).orElse(name) + " line " + d.getLineNumber();
    }
}

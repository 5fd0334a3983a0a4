package dev.engram.framework.processor;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/** Compiles sources with the {@code @Tool} processor through javax.tools, as a compile test. */
record Compilation(boolean success, List<Diagnostic<? extends JavaFileObject>> diagnostics, Path output) {

    /** Compiles {@code sources} (file name to text) into a fresh directory. */
    static Compilation compile(Path workDir, Map<String, String> sources) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        Path src = Files.createDirectories(workDir.resolve("src"));
        Path out = Files.createDirectories(workDir.resolve("classes"));
        List<File> files = new ArrayList<>();
        for (Map.Entry<String, String> e : sources.entrySet()) {
            Path file = src.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue());
            files.add(file.toFile());
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fm = compiler.getStandardFileManager(diagnostics, null, null)) {
            List<String> options = List.of("-classpath", classpath(), "-d", out.toString(), "-s", out.toString(),
                    "--release", "21", "-proc:full");
            JavaCompiler.CompilationTask task = compiler.getTask(null, fm, diagnostics, options, null,
                    fm.getJavaFileObjectsFromFiles(files));
            task.setProcessors(List.of(new ToolProcessor()));
            boolean ok = task.call();
            return new Compilation(ok, diagnostics.getDiagnostics(), out);
        }
    }

    /** What generated code needs: the framework classes and Jackson. */
    private static String classpath() {
        return java.util.stream.Stream.of(dev.engram.framework.DynamicTool.class, tools.jackson.databind.JsonNode.class,
                        tools.jackson.core.type.TypeReference.class, com.fasterxml.jackson.annotation.JsonProperty.class)
                .map(Compilation::location).distinct().collect(Collectors.joining(File.pathSeparator));
    }

    private static String location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    List<String> errors() {
        return diagnostics.stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .map(d -> d.getMessage(null)).toList();
    }

    String generatedSource(String relativePath) throws IOException {
        return Files.readString(output.resolve(relativePath));
    }

    ClassLoader classLoader() throws IOException {
        return new URLClassLoader(new URL[] {output.toUri().toURL()}, getClass().getClassLoader());
    }
}

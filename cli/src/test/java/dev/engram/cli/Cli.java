package dev.engram.cli;

import dev.engram.memory.Embedder;
import dev.engram.memory.MigratedSqlite;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;

/** Runs the engram command in-process, as a user would type it, and captures what it prints. */
final class Cli {
    record Run(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().toList();
        }
    }

    private Cli() {
    }

    /** Runs the command and expects exit code 0. */
    static Run ok(Path home, String... args) {
        Run r = run(home, args);
        org.assertj.core.api.Assertions.assertThat(r.exit()).as("exit of %s; err: %s", String.join(" ", args), r.err()).isZero();
        return r;
    }

    /** Expects the run to have failed with {@code exit} and one error line, without a stack trace, containing {@code contains}. */
    static void oneLineError(Run r, int exit, String contains) {
        org.assertj.core.api.Assertions.assertThat(r.exit()).isEqualTo(exit);
        org.assertj.core.api.Assertions.assertThat(r.errLines()).hasSize(1);
        org.assertj.core.api.Assertions.assertThat(r.err()).startsWith("engram: ").contains(contains)
                .doesNotContain("Exception").doesNotContain("\tat ");
    }

    static Run run(Path home, String... args) {
        return run(home, Map.of(), args);
    }

    /**
     * Runs the command in {@code home}, which starts with a copy of a freshly migrated store when it has none (as the
     * command would create one; the migrations run once per test JVM, not once per test: {@link MigratedSqlite}).
     */
    static Run run(Path home, Map<String, String> env, String... args) {
        MigratedSqlite.at(home.resolve("memory.db"));
        return runAsIs(home, env, args);
    }

    /** Runs the command as {@link #run(Path, String...)} does, its engine's embedding model opened by {@code models}. */
    static Run run(Path home, Function<Path, Embedder> models, String... args) {
        MigratedSqlite.at(home.resolve("memory.db"));
        CommandLine cl = EngramCli.commandLine(Map.of());
        ((EngramCli) cl.getCommand()).embeddingModels = models;
        return execute(cl, home, args);
    }

    /** Runs the command in {@code home} as it is, without a store placed there first (for tests of what creates one). */
    static Run runAsIs(Path home, Map<String, String> env, String... args) {
        return execute(EngramCli.commandLine(env), home, args);
    }

    private static Run execute(CommandLine cl, Path home, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of("--home", home.toString()));
        all.addAll(List.of(args));
        int exit = cl.execute(all.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }
}

package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A run builds picocli's model of the one command it invokes, not of all of them: its usage, its inherited options and
 * its errors stay those of the full command line; the root's usage, {@code help} and a mistyped command get them all.
 */
class LazyCommandLineTest {
    @TempDir
    Path home;

    @Test
    void aRunBuildsTheModelOfOnlyTheCommandItInvokes() {
        CommandLine cl = EngramCli.commandLine(Map.of(), "--home", home.toString(), "serve", "--port", "0");
        assertThat(cl.getSubcommands().keySet()).containsExactly("serve");
        assertThat(EngramCli.commandLine(Map.of(), "-v", "agent", "list").getSubcommands().keySet()).containsExactly("agent");
    }

    @Test
    void theRootOptionsValueIsNotTakenForACommand() {
        assertThat(EngramCli.invoked("--home", "serve", "agent", "list")).contains("agent");
        assertThat(EngramCli.invoked("--postgres", "keys", "search", "x")).contains("search");
        assertThat(EngramCli.invoked("--home=/h", "--verbose", "keys", "list")).contains("keys");
    }

    @Test
    void theRootsUsageHelpAndAMistypedCommandGetEveryCommand() {
        int all = EngramCli.commandLine(Map.of()).getSubcommands().size();
        assertThat(all).isGreaterThan(10);
        for (String[] args : new String[][] {{}, {"--help"}, {"-h", "serve"}, {"--version", "serve"}, {"help", "serve"},
                {"servr"}, {"--home", "h"}, {"--", "serve"}}) {
            assertThat(EngramCli.invoked(args)).as(String.join(" ", args)).isEmpty();
            assertThat(EngramCli.commandLine(Map.of(), args).getSubcommands()).as(String.join(" ", args)).hasSize(all);
        }
    }

    @Test
    void everyCommandsUsageIsTheSameAsOnTheFullCommandLine() {
        CommandLine full = EngramCli.commandLine(Map.of());
        for (String name : full.getSubcommands().keySet()) {
            if (name.equals("help")) {
                continue;
            }
            CommandLine lazy = EngramCli.commandLine(Map.of(), name).getSubcommands().get(name);
            assertSameUsage(full.getSubcommands().get(name), lazy);
        }
        assertThat(usage(EngramCli.commandLine(Map.of(), "--help"))).isEqualTo(usage(full))
                .contains("serve", "agent", "archival", "keys", "mcp");
    }

    private static void assertSameUsage(CommandLine full, CommandLine lazy) {
        assertThat(usage(lazy)).as(full.getCommandSpec().qualifiedName()).isEqualTo(usage(full));
        assertThat(lazy.getSubcommands().keySet()).isEqualTo(full.getSubcommands().keySet());
        full.getSubcommands().forEach((name, sub) -> assertSameUsage(sub, lazy.getSubcommands().get(name)));
    }

    private static String usage(CommandLine cl) {
        StringWriter w = new StringWriter();
        cl.usage(new PrintWriter(w, true));
        return w.toString();
    }

    @Test
    void inheritedOptionsAndErrorsWorkOnTheInvokedCommandAlone() {
        String[] create = {"keys", "create", "--user", "ana", "--home", home.toString()};
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = EngramCli.commandLine(Map.of(), create);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute(create)).as(err.toString()).isZero();
        assertThat(Cli.ok(home, "keys", "list").out()).contains("ana");

        String[] bad = {"--home", home.toString(), "keys", "create", "--no-such-option"};
        StringWriter badErr = new StringWriter();
        CommandLine badCl = EngramCli.commandLine(Map.of(), bad);
        badCl.setErr(new PrintWriter(badErr, true));
        assertThat(badCl.execute(bad)).isEqualTo(2);
        assertThat(badErr.toString()).startsWith("engram: Unknown option: '--no-such-option'")
                .contains("(see 'engram keys create --help')");
    }
}

package dev.engram.cli;

import dev.engram.memory.Embedder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code engram} command. Exit codes: 0 success, 1 a failed operation, 2 bad usage. Errors are
 * one sentence on standard error; {@code --verbose} adds the stack trace.
 */
@Command(name = "engram", mixinStandardHelpOptions = true, versionProvider = EngramCli.Version.class,
        description = "Stateful memory agents: run the demo, chat, and inspect and operate memory.")
public final class EngramCli implements Runnable {
    /**
     * The subcommands, in the order the usage lists them. Added by {@link #commandLine(Map, String...)} rather than
     * declared on the annotation: picocli builds the model of every declared command (reflection over each one's
     * options) before it parses, and a run needs only the one it invokes. Made by {@link #newCommand} (a switch, not a
     * table of constructor references: each reference would be a class the JVM generates at every start).
     */
    private static final Set<String> SUBCOMMANDS = Collections.unmodifiableSet(new LinkedHashSet<>(List.of("demo", "chat",
            "agent", "block", "archival", "archive", "notes", "search", "ingest", "folder", "reindex", "tools", "canvas",
            "schedule", "keys", "serve", "eval", "memory", "mcp", "mcp-turn", "help")));

    private static Object newCommand(String name) {
        return switch (name) {
            case "demo" -> new DemoCommand();
            case "chat" -> new ChatCommand();
            case "agent" -> new AgentCommands();
            case "block" -> new BlockCommands();
            case "archival" -> new ArchivalCommands();
            case "archive" -> new ArchiveCommands();
            case "notes" -> new NotesCommands();
            case "search" -> new SearchCommand();
            case "ingest" -> new IngestCommand();
            case "folder" -> new FolderCommands();
            case "reindex" -> new ReindexCommand();
            case "tools" -> new ToolsCommands();
            case "canvas" -> new CanvasCommands();
            case "schedule" -> new ScheduleCommands();
            case "keys" -> new KeysCommands();
            case "serve" -> new ServeCommand();
            case "eval" -> new EvalCommands();
            case "memory" -> new MemoryCommands();
            case "mcp" -> new McpCommand();
            case "mcp-turn" -> new McpTurnCommand();
            case "help" -> new CommandLine.HelpCommand();
            default -> throw new IllegalArgumentException("no subcommand " + name);
        };
    }

    /** The root options that take a value: the word after them is that value, not a command. */
    private static final Set<String> ROOT_OPTIONS_WITH_VALUE = Set.of("--home", "--postgres");
    /** The root options that answer instead of a command. */
    private static final Set<String> ROOT_USAGE_OPTIONS = Set.of("-h", "--help", "-V", "--version");

    @Option(names = "--home", scope = ScopeType.INHERIT, paramLabel = "DIR",
            description = "Where memory lives (SQLite file, index, native files); default $ENGRAM_HOME, else ~/.engram.")
    Path home;

    @Option(names = "--postgres", scope = ScopeType.INHERIT, paramLabel = "JDBC_URL",
            description = "Keep memory in PostgreSQL instead of the SQLite file (jdbc:postgresql://host:5432/db; the user and "
                    + "password from the URL, else $PGUSER and $PGPASSWORD); default $ENGRAM_POSTGRES. The search index stays "
                    + "in the home directory, one per machine.")
    String postgres;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT, description = "Show stack traces of errors.")
    boolean verbose;

    @Option(names = "--python-tools", scope = ScopeType.INHERIT, description = "Run the Python source of tools imported "
            + "from Letta agent files (python3, always in the bubblewrap sandbox: refused without it; every call asks for "
            + "approval).")
    boolean pythonTools;

    @Option(names = "--unsafe-host-shell", scope = ScopeType.INHERIT, description = "Where bubblewrap is not installed, "
            + "let shell_exec run commands UNSANDBOXED on the host with argument checks only, instead of refusing them. "
            + "Gives up the sandbox: use only for a trusted agent on a trusted machine.")
    boolean unsafeHostShell;

    @Option(names = "--shell-session", scope = ScopeType.INHERIT, description = "Give shell_exec a persistent shell per "
            + "agent and conversation session, in the bubblewrap sandbox (needed): cd and export carry over between calls. "
            + "A session idle for 15 minutes is closed; at most 8 live at once (the one idle longest is closed for a new "
            + "one); all are closed when engram exits.")
    boolean shellSession;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final Map<String, String> environment;
    /** Opens an engine's embedding model: {@link Engine#defaultModel}, or what a test puts in its place to see it asked. */
    Function<Path, Embedder> embeddingModels = Engine::defaultModel;

    /**
     * Lucene reports its vectorization setup through java.util.logging at INFO; the console is for
     * results. Held in a field: java.util.logging keeps loggers only weakly, and would forget the level.
     */
    private static final java.util.logging.Logger LUCENE_LOG = java.util.logging.Logger.getLogger("org.apache.lucene");

    EngramCli(Map<String, String> environment) {
        this.environment = environment;
    }

    public static void main(String[] args) {
        System.setProperty("ai.djl.offline", "true");
        LUCENE_LOG.setLevel(java.util.logging.Level.WARNING);
        if (invoked(args).filter("serve"::equals).isPresent()) {
            ServeCommand.prepareInBackground(); // on the other core while picocli parses
        }
        System.exit(commandLine(System.getenv(), args).execute(args));
    }

    /** The configured command line with every subcommand, for tests. */
    static CommandLine commandLine(Map<String, String> environment) {
        return configure(new EngramCli(environment), SUBCOMMANDS);
    }

    /**
     * The configured command line for running {@code args}: with only the subcommand they invoke when they name one
     * (its usage, errors and behaviour are those of the full command line), else with every subcommand (the root's
     * usage, {@code help}, a mistyped command and its suggestions).
     */
    static CommandLine commandLine(Map<String, String> environment, String... args) {
        return configure(new EngramCli(environment), invoked(args).map(Set::of).orElse(SUBCOMMANDS));
    }

    /** The subcommand {@code args} invoke, after the root options; empty when they invoke none or {@code help}. */
    static Optional<String> invoked(String... args) {
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (ROOT_OPTIONS_WITH_VALUE.contains(arg)) {
                i++; // its value
            } else if (ROOT_USAGE_OPTIONS.contains(arg)) {
                return Optional.empty(); // the root's usage or version, whatever follows
            } else if (!arg.startsWith("-")) {
                return SUBCOMMANDS.contains(arg) && !arg.equals("help") ? Optional.of(arg) : Optional.empty();
            } else if (arg.equals("--")) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private static CommandLine configure(EngramCli root, Set<String> names) {
        CommandLine cl = new CommandLine(root);
        // Added before the settings below, which picocli passes on only to the subcommands present when they are set.
        for (String name : names) {
            cl.addSubcommand(name, newCommand(name));
        }
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            err.println("engram: " + Errors.sentence(ex));
            if (root.verbose) {
                ex.printStackTrace(err);
            }
            err.flush();
            return 1;
        });
        cl.setParameterExceptionHandler((ex, args) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            err.println("engram: " + ex.getMessage().strip().replace('\n', ' ') + " (see '"
                    + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help')");
            err.flush();
            return 2;
        });
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The home directory: --home, else $ENGRAM_HOME, else ~/.engram. */
    Path homeDirectory() {
        if (home != null) {
            return home.toAbsolutePath();
        }
        return Optional.ofNullable(environment.get("ENGRAM_HOME")).filter(s -> !s.isBlank()).map(Path::of)
                .orElseGet(() -> Path.of(System.getProperty("user.home"), ".engram")).toAbsolutePath();
    }

    /** The PostgreSQL URL: --postgres, else $ENGRAM_POSTGRES; empty for the SQLite file in the home directory. */
    Optional<String> postgresUrl() {
        return Optional.ofNullable(postgres).or(() -> Optional.ofNullable(environment.get("ENGRAM_POSTGRES")))
                .filter(s -> !s.isBlank());
    }

    Map<String, String> environment() {
        return environment;
    }

    /** The engine over the home directory. */
    Engine engine() {
        Engine engine = new Engine(homeDirectory(), postgresUrl(), environment, embeddingModels);
        if (pythonTools) {
            engine.enablePythonTools(dev.engram.tools.PythonTools.of(java.time.Duration.ofSeconds(30)));
        }
        if (unsafeHostShell) {
            engine.allowUnsandboxedHostShell();
        }
        if (shellSession) {
            engine.useShellSessions();
        }
        return engine;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = EngramCli.class.getPackage().getImplementationVersion();
            return new String[] {"engram " + (v == null ? "0.1.0-SNAPSHOT" : v) + " (Java " + Runtime.version() + ")"};
        }
    }
}

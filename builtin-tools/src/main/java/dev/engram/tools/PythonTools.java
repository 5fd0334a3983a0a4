package dev.engram.tools;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * The opt-in local runner for tools written in Python (Letta's custom tools): each call runs
 * {@code python3} on the tool's own source in a fresh temporary directory, with the arguments as JSON on
 * standard input and the function's return value as JSON on standard output, under a timeout (the whole
 * process tree is killed), with an environment stripped to {@code PATH} and {@code LANG}, always inside the
 * bubblewrap sandbox (no network, no capabilities, only {@code /usr} and the temporary directory visible, the
 * {@link SandboxLimits} set): without {@code bwrap} the runner cannot be created. Of its output only the end is
 * kept ({@link #OUTPUT_BYTES} of each stream), so a tool printing without end takes no more memory than that.
 * Every call needs approval, whatever the approval mode ({@link DynamicTool#alwaysNeedsApproval()}).
 *
 * <p>Off unless a host enables it ({@code AgentRuntime.Builder.pythonTools}): running code that came
 * in an agent file is the user's decision.
 */
public final class PythonTools {
    /** Bytes kept of a call's standard output and of its standard error, each: four times the pipeline's budget. */
    public static final int OUTPUT_BYTES = 64 * 1024;

    private static final String DRIVER = """
            import json, sys
            namespace = {}
            with open("tool.py", encoding="utf-8") as f:
                exec(compile(f.read(), "tool.py", "exec"), namespace)
            function = namespace.get(sys.argv[1])
            if not callable(function):
                print(json.dumps({"error": "the source defines no function named " + sys.argv[1]}))
                sys.exit(3)
            args = json.load(sys.stdin)
            try:
                result = function(**args)
            except Exception as e:
                print(json.dumps({"error": type(e).__name__ + ": " + str(e)}))
                sys.exit(4)
            print()
            print(json.dumps({"result": result}, default=str))
            """;

    private final Path python;
    private final Duration timeout;
    private final Bubblewrap sandbox;
    private final SandboxLimits limits;

    private PythonTools(Path python, Duration timeout, Bubblewrap sandbox, SandboxLimits limits) {
        this.python = python;
        this.timeout = timeout;
        this.sandbox = sandbox;
        this.limits = limits;
    }

    /** As {@link #of(Duration, SandboxLimits)} with {@link SandboxLimits#defaults()}. */
    public static PythonTools of(Duration timeout) {
        return of(timeout, SandboxLimits.defaults());
    }

    /**
     * A runner with the first {@code python3} under {@code /usr} (the only system directory the sandbox shows),
     * running every call in the bubblewrap sandbox under {@code limits}.
     *
     * @throws IllegalStateException if bubblewrap is not installed (Python tools never run unsandboxed: {@code
     *                               apt-get install bubblewrap util-linux}) or there is no {@code python3} under
     *                               {@code /usr} ({@code apt-get install python3})
     */
    public static PythonTools of(Duration timeout, SandboxLimits limits) {
        return of(timeout, limits, Bubblewrap.find());
    }

    static PythonTools of(Duration timeout, SandboxLimits limits, Optional<Bubblewrap> bwrap) {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(limits, "limits");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        if (bwrap.isEmpty()) {
            throw new IllegalStateException("Python tools run only in the bubblewrap sandbox, and bwrap is not installed "
                    + "(or /usr/bin/prlimit is missing): install them (" + Bubblewrap.INSTALL + ") or leave Python "
                    + "tools off. They never run unsandboxed on the host.");
        }
        bwrap.get().user().refusal().ifPresent(why -> {
            throw new IllegalStateException("Python tools run only in the bubblewrap sandbox. " + why);
        });
        return Bubblewrap.programUnderUsr("python3").map(python -> new PythonTools(python, timeout, bwrap.get(), limits))
                .orElseThrow(() -> new IllegalStateException("The Python tool runner needs python3 under /usr, where the "
                        + "sandbox can see it (apt-get install python3)."));
    }

    /** Whether calls run inside the bubblewrap sandbox: always, since the runner cannot be created without it. */
    public boolean sandboxed() {
        return true;
    }

    /** The tool {@code name} defined by {@code source} (a Python function of that name), with its schema. */
    public DynamicTool tool(String name, String description, ObjectNode schema, String source) {
        Objects.requireNonNull(source, "source");
        return new DynamicTool() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String description() {
                return description;
            }

            @Override
            public ObjectNode parametersSchema() {
                return schema;
            }

            @Override
            public SafetyTier safetyTier() {
                return SafetyTier.PRIVILEGED;
            }

            @Override
            public boolean alwaysNeedsApproval() {
                return true;
            }

            @Override
            public Duration timeout() {
                return timeout.plusSeconds(5);
            }

            @Override
            public String execute(String argumentsJson, ToolContext context) throws Exception {
                return PythonTools.this.run(name, source, argumentsJson);
            }
        };
    }

    private String run(String function, String source, String argumentsJson) throws Exception {
        Path dir = Files.createTempDirectory("engram-python-tool-");
        try {
            Files.writeString(dir.resolve("tool.py"), source);
            Files.writeString(dir.resolve("driver.py"), DRIVER);
            giveToSandbox(dir);
            List<String> command = List.of(python.toString(), "-I", "driver.py", function);
            ProcessBuilder pb = new ProcessBuilder(sandbox.wrap(Workspace.of(dir), dir, command, limits)).directory(dir.toFile());
            Map<String, String> env = pb.environment();
            env.keySet().removeIf(k -> !k.equals("PATH") && !k.equals("LANG"));
            env.put("HOME", Bubblewrap.HOME);
            BoundedProcess.Outcome outcome = BoundedProcess.run(pb, argumentsJson.getBytes(StandardCharsets.UTF_8), timeout,
                    OUTPUT_BYTES, false);
            return switch (outcome.stop()) {
                case TIMED_OUT -> throw new ToolException("Tool '" + function + "' did not finish within "
                        + timeout.toSeconds() + " s and was stopped.");
                case EXITED -> answer(function, outcome.output(), outcome.errors());
            };
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * Makes the call's own temporary directory (created for the JVM's user alone) the sandbox's: for a root JVM, whose
     * sandbox runs as uid 65534, the directory and its two files are handed to that user, as its workspace.
     */
    private void giveToSandbox(Path dir) throws IOException {
        SandboxUser user = sandbox.user();
        if (user.dropsRoot()) {
            for (Path p : List.of(dir, dir.resolve("tool.py"), dir.resolve("driver.py"))) {
                Files.setAttribute(p, "unix:uid", user.uid());
                Files.setAttribute(p, "unix:gid", user.gid());
            }
        }
    }

    /**
     * The function's result from the last line of standard output; its error, or the end of what it printed,
     * when there is none. A result line longer than what is kept is refused: it would not fit the model anyway.
     */
    private static String answer(String function, TailBuffer stdout, TailBuffer stderr) {
        String kept = stdout.tail().strip();
        int lineStart = kept.lastIndexOf('\n') + 1;
        if (lineStart == 0 && stdout.total() > stdout.kept()) {
            throw new ToolException("Tool '" + function + "' printed " + stdout.total() + " bytes and its result is longer "
                    + "than the " + OUTPUT_BYTES + " kept; return less. Its end: " + tail(stdout.text()));
        }
        tools.jackson.databind.JsonNode json;
        try {
            json = tools.jackson.databind.json.JsonMapper.builder().build().readTree(kept.substring(lineStart));
        } catch (tools.jackson.core.JacksonException e) {
            throw new ToolException("Tool '" + function + "' failed: " + tail(stderr.total() == 0 ? stdout.text() : stderr.text()));
        }
        if (json == null || !json.isObject()) {
            throw new ToolException("Tool '" + function + "' failed: " + tail(stderr.total() == 0 ? stdout.text() : stderr.text()));
        }
        if (json.has("error")) {
            throw new ToolException("Tool '" + function + "' failed: " + json.path("error").asString(""));
        }
        tools.jackson.databind.JsonNode result = json.path("result");
        return result.isString() ? result.asString() : result.toString();
    }

    private static String tail(String text) {
        String t = text.strip();
        if (t.length() <= 2_000) {
            return t;
        }
        String marker = t.startsWith("[... ") ? t.substring(0, t.indexOf('\n') + 1) : "";
        return marker + "..." + t.substring(t.length() - 2_000);
    }
}

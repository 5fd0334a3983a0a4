package dev.engram.tools;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.node.ObjectNode;

/**
 * The opt-in local runner for tools written in Python (Letta's custom tools): each call runs
 * {@code python3} on the tool's own source in a fresh temporary directory, with the arguments as JSON on
 * standard input and the function's return value as JSON on standard output, under a timeout (the whole
 * process tree is killed), with an environment stripped to {@code PATH} and {@code LANG}, and inside the
 * bubblewrap sandbox when {@code bwrap} is installed (no network, only {@code /usr} and the temporary
 * directory visible). Such tools are {@link SafetyTier#PRIVILEGED}: every call needs approval.
 *
 * <p>Off unless a host enables it ({@code AgentRuntime.Builder.pythonTools}): running code that came
 * in an agent file is the user's decision.
 */
public final class PythonTools {
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
            print(json.dumps({"result": result}, default=str))
            """;

    private final Path python;
    private final Duration timeout;
    private final boolean sandboxed;

    private PythonTools(Path python, Duration timeout, boolean sandboxed) {
        this.python = python;
        this.timeout = timeout;
        this.sandboxed = sandboxed;
    }

    /**
     * A runner with {@code python3} from the PATH, sandboxed when {@code bwrap} is installed. The sandbox
     * shows only {@code /usr}, so there the first {@code python3} that lives under {@code /usr} is used
     * (a version manager's shim elsewhere could not run inside it).
     *
     * @throws IllegalStateException if there is no usable {@code python3} (install it: {@code apt-get install python3})
     */
    public static PythonTools of(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        boolean sandboxed = Bubblewrap.find().isPresent();
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        List<String> dirs = new ArrayList<>(List.of(path.split(File.pathSeparator)));
        dirs.add("/usr/bin");
        for (String dir : dirs) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "python3");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate) && (!sandboxed || underUsr(candidate))) {
                return new PythonTools(candidate, timeout, sandboxed);
            }
        }
        throw new IllegalStateException("The Python tool runner needs python3" + (sandboxed ? " under /usr, where the sandbox "
                + "can see it" : " on the PATH") + " (apt-get install python3).");
    }

    private static boolean underUsr(Path p) {
        try {
            return p.toRealPath().startsWith("/usr/");
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether calls run inside the bubblewrap sandbox. */
    public boolean sandboxed() {
        return sandboxed;
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
            public Duration timeout() {
                return timeout.plusSeconds(5);
            }

            @Override
            public String execute(String argumentsJson, ToolContext context) throws Exception {
                return run(name, source, argumentsJson);
            }
        };
    }

    private String run(String function, String source, String argumentsJson) throws Exception {
        Path dir = Files.createTempDirectory("engram-python-tool-");
        try {
            Files.writeString(dir.resolve("tool.py"), source);
            Files.writeString(dir.resolve("driver.py"), DRIVER);
            List<String> command = List.of(python.toString(), "-I", "driver.py", function);
            List<String> argv = sandboxed ? Bubblewrap.find().orElseThrow().wrap(Workspace.of(dir), dir, command) : command;
            ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(argv)).directory(dir.toFile()).redirectErrorStream(false);
            Map<String, String> env = pb.environment();
            env.keySet().removeIf(k -> !k.equals("PATH") && !k.equals("LANG"));
            env.put("HOME", sandboxed ? Bubblewrap.HOME : dir.toString());
            Process process = pb.start();
            try (var in = process.getOutputStream()) {
                in.write(argumentsJson.getBytes(StandardCharsets.UTF_8));
            }
            var out = new java.io.ByteArrayOutputStream();
            var err = new java.io.ByteArrayOutputStream();
            Thread o = Thread.ofVirtual().start(() -> copy(process.getInputStream(), out));
            Thread e = Thread.ofVirtual().start(() -> copy(process.getErrorStream(), err));
            boolean finished;
            try {
                finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                if (process.isAlive()) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                }
            }
            o.join(2_000);
            e.join(2_000);
            if (!finished) {
                throw new ToolException("Tool '" + function + "' did not finish within " + timeout.toSeconds() + " s and was stopped.");
            }
            return answer(function, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static String answer(String function, String stdout, String stderr) {
        String last = stdout.strip().lines().reduce((a, b) -> b).orElse("");
        tools.jackson.databind.JsonNode json;
        try {
            json = tools.jackson.databind.json.JsonMapper.builder().build().readTree(last);
        } catch (tools.jackson.core.JacksonException e) {
            throw new ToolException("Tool '" + function + "' failed: " + tail(stderr.isBlank() ? stdout : stderr));
        }
        if (json.has("error")) {
            throw new ToolException("Tool '" + function + "' failed: " + json.path("error").asString(""));
        }
        tools.jackson.databind.JsonNode result = json.path("result");
        return result.isString() ? result.asString() : result.toString();
    }

    private static String tail(String text) {
        String t = text.strip();
        return t.length() <= 2_000 ? t : "..." + t.substring(t.length() - 2_000);
    }

    private static void copy(java.io.InputStream in, java.io.ByteArrayOutputStream out) {
        try {
            in.transferTo(out);
        } catch (IOException ignored) {
            // the process was killed
        }
    }
}

package dev.engram.tools;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolProgress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tools written as one function in Python or JavaScript (Letta's custom tools), called with their arguments through
 * the {@link CodeRunner}: the source runs in the bubblewrap sandbox with a few lines after it that call the function
 * (Python with the arguments by name, and {@code agent_state} as {@code None} when it takes one; JavaScript with them
 * in the order of the schema, required ones first, as Letta calls TypeScript tools, an {@code async} function
 * awaited) and print its return value as JSON on a line marked for this call. What the function itself printed is
 * its standard output and error. A tool without a runner does not exist: code never runs unsandboxed.
 */
public final class SourceFunctions {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * How one call went.
     *
     * @param succeeded whether the function returned
     * @param value     what it returned (a string as is, anything else as JSON), or why it failed
     * @param stdout    what it printed on standard output (the result line left out)
     * @param stderr    what it printed on standard error (a traceback when it raised)
     */
    public record Outcome(boolean succeeded, String value, String stdout, String stderr) {
    }

    private SourceFunctions() {
    }

    /**
     * Calls {@code function} of {@code source} with {@code argumentsJson} (a JSON object).
     *
     * @param parameters the function's parameter schema (its {@code properties} and {@code required} order a JavaScript
     *                   call's arguments)
     * @throws ToolException for a language this runner has no interpreter for, or arguments that are not an object
     */
    public static Outcome call(CodeRunner runner, CodeLanguage language, String source, String function, ObjectNode parameters,
            String argumentsJson, ToolProgress progress) throws IOException, InterruptedException {
        Objects.requireNonNull(runner, "runner");
        if (!function.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new ToolException("'" + function + "' is not a function name: use letters, digits and '_'.");
        }
        JsonNode args;
        try {
            args = JSON.readTree(argumentsJson.isBlank() ? "{}" : argumentsJson);
        } catch (JacksonException e) {
            throw new ToolException("The arguments are not JSON: " + e.getOriginalMessage());
        }
        if (!args.isObject()) {
            throw new ToolException("The arguments must be a JSON object of the function's parameters.");
        }
        String marker = "engram-result-" + UUID.randomUUID().toString().replace("-", "") + ":";
        String encoded = Base64.getEncoder().encodeToString(args.toString().getBytes(StandardCharsets.UTF_8));
        String program = language == CodeLanguage.PYTHON ? python(source, function, encoded, marker)
                : javascript(source, function, order(parameters, args), encoded, marker);
        CodeRun run = runner.run(language, program, progress);
        return outcome(function, run, marker, runner.timeout());
    }

    /**
     * The function as a tool of the model: it runs through {@link #call} with the runner's timeout (plus a margin), is
     * {@link SafetyTier#READ_ONLY} (in the sandbox it reaches no network and no host file, and leaves nothing behind:
     * it changes nothing; as Letta's custom tools, it runs without asking), always asks first when
     * {@code requiresApproval}, and gives the model at most
     * {@code returnCharLimit} characters of what the function returned (Letta's {@code return_char_limit}), saying
     * how much was cut.
     */
    public static DynamicTool tool(CodeRunner runner, CodeLanguage language, String name, String description,
            ObjectNode parameters, String source, boolean requiresApproval, int returnCharLimit) {
        if (returnCharLimit < 1) {
            throw new IllegalArgumentException("a tool's return character limit must be positive, got " + returnCharLimit);
        }
        Objects.requireNonNull(runner, "runner");
        Objects.requireNonNull(source, "source");
        ObjectNode schema = parameters.deepCopy();
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
                return schema.deepCopy();
            }

            @Override
            public SafetyTier safetyTier() {
                return SafetyTier.READ_ONLY;
            }

            @Override
            public boolean alwaysNeedsApproval() {
                return requiresApproval;
            }

            @Override
            public Duration timeout() {
                return runner.timeout().plusSeconds(5);
            }

            @Override
            public String execute(String argumentsJson, ToolContext context) throws Exception {
                Outcome o = call(runner, language, source, name, schema, argumentsJson, context.progress());
                if (!o.succeeded()) {
                    throw new ToolException("Tool '" + name + "' failed: " + o.value());
                }
                return cut(o.value(), returnCharLimit);
            }
        };
    }

    /** {@code text} cut to {@code limit} characters (code points), with a note when it was cut. */
    static String cut(String text, int limit) {
        int length = text.codePointCount(0, text.length());
        if (length <= limit) {
            return text;
        }
        return text.substring(0, text.offsetByCodePoints(0, limit)) + "\n[output cut to this tool's return limit of " + limit
                + " characters, from " + length + "]";
    }

    private static String python(String source, String function, String encoded, String marker) {
        return source + "\n\n"
                + "def __engram_call():\n"
                + "    import base64 as _b, inspect as _i, json as _j\n"
                + "    _args = _j.loads(_b.b64decode('" + encoded + "').decode('utf-8'))\n"
                + "    _fn = globals().get(" + pyString(function) + ")\n"
                + "    if not callable(_fn):\n"
                + "        raise SystemExit('NameError: the source defines no function named ' + " + pyString(function) + ")\n"
                + "    try:\n"
                + "        if 'agent_state' in _i.signature(_fn).parameters and 'agent_state' not in _args:\n"
                + "            _args['agent_state'] = None\n"
                + "    except (TypeError, ValueError):\n"
                + "        pass\n"
                + "    _r = _fn(**_args)\n"
                + "    if _i.isawaitable(_r):\n"
                + "        import asyncio as _a\n"
                + "        _r = _a.run(_r)\n"
                + "    print('\\n" + marker + "' + _j.dumps({'result': _r}, default=str), flush=True)\n"
                + "__engram_call()\n";
    }

    private static String javascript(String source, String function, List<String> order, String encoded, String marker) {
        String args = String.join(",", order.stream().map(k -> "__args[" + JSON.valueToTree(k) + "]").toList());
        return "const __args=JSON.parse(Buffer.from('" + encoded + "','base64').toString('utf8'));\n"
                + source.replaceAll("\\bexport\\s+(default\\s+)?", "") + "\n"
                + "{const __r=await " + function + "(" + args + ");"
                + "console.log('\\n" + marker + "'+JSON.stringify({result:__r===undefined?null:__r}));}\n";
    }

    /** The arguments' positions: the required parameters in order, then the others; absent ones trailing dropped. */
    private static List<String> order(ObjectNode parameters, JsonNode args) {
        List<String> order = new ArrayList<>();
        parameters.path("required").forEach(n -> order.add(n.asString()));
        parameters.path("properties").propertyNames().forEach(n -> {
            if (!order.contains(n)) {
                order.add(n);
            }
        });
        args.propertyNames().forEach(n -> {
            if (!order.contains(n)) {
                order.add(n);
            }
        });
        while (!order.isEmpty() && !args.has(order.getLast())) {
            order.removeLast();
        }
        return order;
    }

    private static Outcome outcome(String function, CodeRun run, String marker, Duration timeout) {
        String stdout = run.stdout();
        int at = stdout.lastIndexOf("\n" + marker);
        String printed = at < 0 ? stdout : stdout.substring(0, at);
        if (run.stop() == CodeRun.Stop.TIMED_OUT) {
            return new Outcome(false, "it did not finish within " + timeout.toSeconds() + " s and was stopped", printed,
                    run.stderr());
        }
        if (run.stop() == CodeRun.Stop.OUTPUT_LIMIT) {
            return new Outcome(false, "it printed more than the output limit and was stopped", printed, run.stderr());
        }
        if (at < 0) {
            return new Outcome(false, lastLine(run.stderr()).orElse("it exited with code " + run.exitCode().orElse(-1)
                    + " without returning"), printed, run.stderr());
        }
        String line = stdout.substring(at + 1 + marker.length()).strip();
        JsonNode result;
        try {
            result = JSON.readTree(line).path("result");
        } catch (JacksonException e) {
            return new Outcome(false, "its return value could not be read back (" + e.getOriginalMessage() + ")", printed,
                    run.stderr());
        }
        return new Outcome(true, result.isString() ? result.asString() : result.toString(), printed, run.stderr());
    }

    private static Optional<String> lastLine(String text) {
        List<String> lines = text.strip().lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? Optional.empty() : Optional.of(lines.getLast().strip());
    }

    private static String pyString(String s) {
        return JSON.valueToTree(s).toString();
    }
}

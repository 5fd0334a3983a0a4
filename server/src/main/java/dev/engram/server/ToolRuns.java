package dev.engram.server;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolDefinitionException;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.tools.CodeLanguage;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.PythonSchemas;
import dev.engram.tools.SourceFunctions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST /v1/tools/run}: a function from source run once with the given arguments, through the tool pipeline
 * (argument validation against its schema, the runner's timeout, truncation; the caller asked, so nothing asks again),
 * answered as Letta's {@code ToolReturnMessage} with what the function printed. Without the operator's code runner it
 * is a 403 naming {@code --code}, and nothing runs.
 */
final class ToolRuns {
    private final CustomTools tools;

    ToolRuns(CustomTools tools) {
        this.tools = tools;
    }

    ObjectNode fromSource(Body body) {
        String source = body.requiredString("source_code");
        String type = ToolSources.sourceType(body.string("source_type").orElse("python"));
        ObjectNode args = body.object("args").orElseThrow(() -> body.problem("missing", "Field required", "args"));
        CodeRunner runner = tools.runner().orElseThrow(() -> ApiException.forbidden("POST /v1/tools/run did not run "
                + "anything. " + CustomTools.NO_RUNNER));
        if (body.object("env_vars").map(e -> !e.isEmpty()).orElse(false)) {
            throw ApiException.badRequest("env_vars cannot be given: the sandbox passes no environment variables to a tool "
                    + "(only PATH and LANG). Pass the values as arguments. Nothing ran.");
        }
        Optional<ObjectNode> given = body.object("json_schema");
        Optional<String> name = body.string("name").or(() -> given.map(s -> s.path("name").asString("")).filter(n -> !n.isBlank()));
        if (name.isEmpty() && type.equals("python")) {
            List<String> functions = PythonSchemas.functions(source);
            if (functions.isEmpty()) {
                throw ApiException.badRequest("The source defines no function at its top level; write the tool as one "
                        + "Python function. Nothing ran.");
            }
            name = Optional.of(functions.getLast());
        }
        String function = name.orElseThrow(() -> ApiException.badRequest("Name the function to run (name, or "
                + "json_schema's name): it cannot be found in " + type + " source. Nothing ran."));
        ObjectNode parameters = given.map(s -> s.path("parameters")).filter(p -> p.isObject()).map(p -> (ObjectNode) p)
                .or(() -> body.object("args_json_schema"))
                .or(() -> derived(source, type, function))
                .orElseGet(() -> Body.JSON.createObjectNode().put("type", "object"));
        AtomicReference<SourceFunctions.Outcome> outcome = new AtomicReference<>();
        DynamicTool tool = new Capturing(function, parameters, runner, CustomTools.language(type), source, outcome);
        ToolExecutor executor = ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build();
        ToolResult result = executor.execute(ToolCall.of(function, args.toString()), ToolContext.empty());
        return answer(function, result, Optional.ofNullable(outcome.get()), body.raw("pip_requirements")
                .filter(r -> r.isArray() && !r.isEmpty()).isPresent());
    }

    private static Optional<ObjectNode> derived(String source, String type, String function) {
        if (!type.equals("python")) {
            return Optional.empty();
        }
        try {
            return Optional.of((ObjectNode) PythonSchemas.derive(source, function).path("parameters"));
        } catch (ToolDefinitionException e) {
            // Run it all the same, with its arguments unchecked: a schema is for the model, this caller is a person.
            return Optional.empty();
        }
    }

    private static ObjectNode answer(String name, ToolResult result, Optional<SourceFunctions.Outcome> outcome,
            boolean requirements) {
        String id = "message-" + UUID.randomUUID();
        String callId = "call-" + UUID.randomUUID();
        String status = result.isError() ? "error" : "success";
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", id);
        o.put("date", Instant.now().toString());
        o.put("name", name);
        o.put("message_type", "tool_return_message");
        o.putNull("otid");
        o.putNull("sender_id");
        o.putNull("step_id");
        o.putNull("is_err");
        o.putNull("seq_id");
        o.putNull("run_id");
        o.put("tool_return", result.content());
        o.put("status", status);
        o.put("tool_call_id", callId);
        ArrayNode stdout = o.putArray("stdout");
        ArrayNode stderr = o.putArray("stderr");
        outcome.ifPresent(out -> {
            if (!out.stdout().isEmpty()) {
                stdout.add(out.stdout());
            }
            if (!out.stderr().isEmpty()) {
                stderr.add(out.stderr());
            }
        });
        if (requirements) {
            stderr.add(ToolSources.NOT_INSTALLED);
        }
        ObjectNode ret = o.putArray("tool_returns").addObject();
        ret.put("tool_call_id", callId);
        ret.put("status", status);
        ret.put("tool_return", result.content());
        ret.set("stdout", stdout.deepCopy());
        ret.set("stderr", stderr.deepCopy());
        return o;
    }

    /** The function as a tool that keeps what it printed for the answer. */
    private record Capturing(String name, ObjectNode schema, CodeRunner runner, CodeLanguage language, String source,
            AtomicReference<SourceFunctions.Outcome> outcome) implements DynamicTool {
        @Override
        public String description() {
            return "Runs " + name + " from source.";
        }

        @Override
        public ObjectNode parametersSchema() {
            return schema.deepCopy();
        }

        @Override
        public SafetyTier safetyTier() {
            return SafetyTier.SIDE_EFFECTING;
        }

        @Override
        public Duration timeout() {
            return runner.timeout().plusSeconds(5);
        }

        @Override
        public String execute(String argumentsJson, ToolContext context) throws Exception {
            SourceFunctions.Outcome o = SourceFunctions.call(runner, language, source, name, schema, argumentsJson,
                    context.progress());
            outcome.set(o);
            if (!o.succeeded()) {
                throw new ToolException(o.value());
            }
            return o.value();
        }
    }
}

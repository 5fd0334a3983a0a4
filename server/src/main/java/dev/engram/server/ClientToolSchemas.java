package dev.engram.server;

import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolDefinitionException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code client_tools} of a message request (Letta's {@code ClientToolSchema}: a {@code name}, an optional
 * {@code description}, an optional JSON Schema of {@code parameters}): tools the client runs itself, offered to the model
 * for this request's turn only and never stored. A name that is not a valid tool name or given twice, or parameters that
 * are not a JSON Schema of an object, are a 422 naming the tool and the field.
 */
final class ClientToolSchemas {
    private ClientToolSchemas() {
    }

    static List<ToolDefinition> decode(Body body) {
        Optional<List<Body>> tools = body.objects("client_tools");
        if (tools.isEmpty()) {
            return List.of();
        }
        List<ToolDefinition> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Body t : tools.get()) {
            String name = t.requiredString("name");
            if (!names.add(name)) {
                throw t.problem("value_error", "Client tool '" + name + "' is given twice; give each tool once", "name");
            }
            ObjectNode parameters = t.object("parameters").orElseGet(() -> {
                ObjectNode o = Body.JSON.createObjectNode().put("type", "object");
                o.putObject("properties");
                return o;
            });
            if (parameters.has("type") && !parameters.path("type").asString("").equals("object")) {
                throw t.problem("value_error", "The parameters of client tool '" + name + "' must be the JSON Schema of an "
                        + "object (\"type\": \"object\"), not " + parameters.path("type"), "parameters", "type");
            }
            if (parameters.has("properties") && !parameters.path("properties").isObject()) {
                throw t.problem("value_error", "The parameters of client tool '" + name + "' must list their properties as "
                        + "an object", "parameters", "properties");
            }
            try {
                out.add(ToolDefinition.checked(name, t.string("description").orElse(""), parameters, SafetyTier.PRIVILEGED));
            } catch (ToolDefinitionException e) {
                boolean badName = e.getMessage().startsWith("Tool name");
                throw t.problem("value_error", "Client tool '" + name + "': " + e.getMessage(), badName ? "name" : "parameters");
            }
        }
        return List.copyOf(out);
    }
}

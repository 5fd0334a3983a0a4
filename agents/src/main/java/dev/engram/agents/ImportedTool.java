package dev.engram.agents;

import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@link DeclaredTool} as the model sees it: its name, description and schema. Without an
 * implementation, a call fails with an error that says how to provide one; the model learns the tool is
 * unavailable, the user reads how to fix it.
 */
final class ImportedTool implements dev.engram.framework.DynamicTool {
    private final DeclaredTool declared;
    private final ObjectNode schema;

    ImportedTool(DeclaredTool declared) {
        this.declared = declared;
        this.schema = (ObjectNode) Heartbeats.JSON.readTree(declared.parameters());
        if (!schema.has("type")) {
            schema.put("type", "object");
        }
    }

    @Override
    public String name() {
        return declared.name();
    }

    @Override
    public String description() {
        return declared.description().isBlank() ? "Tool " + declared.name() + " (imported)." : declared.description();
    }

    @Override
    public ObjectNode parametersSchema() {
        return schema;
    }

    /** Read-only: it does nothing but explain, so no one is asked to approve it. */
    @Override
    public SafetyTier safetyTier() {
        return SafetyTier.READ_ONLY;
    }

    @Override
    public String execute(String argumentsJson, ToolContext context) {
        throw new ToolException(unavailable(declared));
    }

    /** Why the tool cannot run, and how to make it run. */
    static String unavailable(DeclaredTool t) {
        String how = "register an implementation under the same name (AgentRuntime.Builder.tool(...)), which this agent "
                + "then uses";
        if (t.isPython()) {
            how += ", or enable the local Python runner (AgentRuntime.Builder.pythonTools(...); engram --python-tools), "
                    + "which runs the tool's own Python source after approval";
        }
        return "Tool '" + t.name() + "' came with this agent from its agent file (" + (t.kind().isBlank() ? "no kind" : t.kind())
                + (t.sourceType().isBlank() ? "" : ", " + t.sourceType() + " source") + ") and has no implementation in this "
                + "runtime, so it did not run. To provide one, " + how + ". Tell the user this tool is unavailable.";
    }
}

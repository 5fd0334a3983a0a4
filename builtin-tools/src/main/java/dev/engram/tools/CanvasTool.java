package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.memory.CanvasArtefact;
import dev.engram.memory.CanvasStore;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import java.util.Optional;

/**
 * {@code canvas}: the agent writes an interactive HTML document (CSS and JavaScript inline) for its user to open; every
 * write of a name is a new version, the earlier ones kept. The document is stored with the agent
 * ({@link MemoryStore#canvases()}); {@code engram serve} serves it sandboxed under {@link #path}, and
 * {@code engram canvas open NAME} writes it to a file. The document cannot load anything from the network when it is
 * opened: everything it needs is inline.
 */
final class CanvasTool implements AiTool<CanvasTool.Input, CanvasTool.Output> {
    static final String NAME = "canvas";

    record Input(@JsonPropertyDescription("The artefact's name: 1 to 64 letters, digits, dots, dashes or underscores, e.g. "
            + "sales-chart. Writing an existing name stores a new version of it.") String name,
            @JsonPropertyDescription("A complete HTML document with its CSS and JavaScript inline; it runs sandboxed, with no "
                    + "network access (no external scripts, images, fonts or fetch calls).") String html,
            @JsonPropertyDescription("A short title for lists and the browser tab; optional.") Optional<String> title) {
    }

    /** What the model is told: where the artefact is, never its content again. */
    record Output(String name, int version, int bytes, String path, String message) {
    }

    private final MemoryStore store;

    CanvasTool(MemoryStore store) {
        this.store = store;
    }

    /** Where {@code engram serve} serves a version of an artefact (the caller's key, or a signed link, opens it). */
    static String path(Scope scope, String name, int version) {
        return "/canvas/" + scope.agentId() + "/" + name + "?version=" + version;
    }

    @Override
    public ToolInfo info() {
        return ToolInfo.of(NAME, "Create or update an interactive visual artefact (an HTML page with inline CSS and "
                + "JavaScript: a chart, a diagram, a small app) that the user opens in a browser. Each call stores a new "
                + "version of the named artefact and keeps the earlier ones. The page runs sandboxed without network access, "
                + "so inline all data and code. Returns {name, version, bytes, path, message}; artefacts are at most "
                + CanvasStore.MAX_BYTES + " bytes.", SafetyTier.SIDE_EFFECTING);
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public Output execute(Input in, ToolContext context) {
        Scope scope = ToolScopes.of(context);
        CanvasArtefact a;
        try {
            a = store.canvases().write(scope, in.name(), in.title().orElse(""), in.html());
        } catch (IllegalArgumentException e) {
            throw new ToolException(e.getMessage() + ".");
        }
        return new Output(a.name(), a.version(), a.bytes(), path(scope, a.name(), a.version()),
                "Saved version " + a.version() + " of canvas '" + a.name() + "'. The user opens it with 'engram canvas open "
                        + a.name() + "' or, on a server, at " + path(scope, a.name(), a.version()) + ".");
    }
}

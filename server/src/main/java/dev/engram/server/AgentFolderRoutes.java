package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;

import dev.engram.agents.Agent;
import dev.engram.memory.AgentFile;
import dev.engram.memory.FileLimits;
import dev.engram.memory.Folder;
import dev.engram.memory.NotFoundException;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An agent's folders and files, as Letta's agent routes have them: attach and detach a folder ({@code PATCH
 * /v1/agents/{id}/folders|sources/attach|detach/{folder_id}}, bringing and taking Letta's file tools), the attached
 * folders ({@code GET …/folders|sources}), the agent's files with their open or closed state and window ({@code GET
 * …/files}, Letta's {@code PaginatedAgentFiles}), and opening, closing and closing every file ({@code PATCH
 * …/files/{file_id}/open|close}, {@code …/files/close-all}). A folder or file of another user is a 404, and changes
 * nothing.
 */
final class AgentFolderRoutes {
    private static final List<String> NAMES = List.of("folders", "sources");

    private final Api api;

    AgentFolderRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        Route.Table t = Route.table();
        for (String n : NAMES) {
            t.add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/" + n + "/attach/{folder_id}", this::attach));
            t.add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/" + n + "/detach/{folder_id}", this::detach));
            t.add(Route.agent(api, GET, "/v1/agents/{agent_id}/" + n, this::folders));
        }
        return t.add(Route.agent(api, GET, "/v1/agents/{agent_id}/files", this::files))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/files/close-all", this::closeAll))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/files/{file_id}/open", this::open))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/files/{file_id}/close", this::close))
                .list();
    }

    private void attach(Agent agent, ServerRequest req, ServerResponse res) {
        Agent changed = api.runtime.attachFolder(agent.userId(), agent.id(), own(agent, req).id());
        Api.json(res, api.agentState(changed));
    }

    private void detach(Agent agent, ServerRequest req, ServerResponse res) {
        Agent changed = api.runtime.detachFolder(agent.userId(), agent.id(), own(agent, req).id());
        Api.json(res, api.agentState(changed));
    }

    private void folders(Agent agent, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, true);
        List<Folder> attached = api.store.folders().agents().attached(agent.scope());
        Api.json(res, pages.page(attached, Folder::id, "folder").stream().map(FolderViews::folder).toList());
    }

    /** Letta's {@code PaginatedAgentFiles}: a page of the agent's files ({@code is_open} filters), with the next cursor. */
    private void files(Agent agent, ServerRequest req, ServerResponse res) {
        Pages asked = Pages.of(req, 20, true);
        Pages pages = new Pages(asked.before(), asked.after().or(() -> Query.string(req, "cursor")), asked.limit() + 1,
                asked.ascending());
        List<AgentFile> all = new ArrayList<>(api.store.folders().agents().view(agent.scope()));
        Optional<Boolean> open = Query.string(req, "is_open").map(v -> Query.bool(req, "is_open", false));
        open.ifPresent(o -> all.removeIf(f -> f.open() != o));
        List<AgentFile> page = pages.page(all, f -> f.file().id(), "file");
        boolean more = page.size() > asked.limit();
        List<AgentFile> shown = more ? page.subList(0, asked.limit()) : page;
        FileLimits limits = agent.definition().fileLimits();
        ObjectNode out = Body.JSON.createObjectNode();
        ArrayNode files = out.putArray("files");
        for (AgentFile f : shown) {
            ObjectNode o = files.addObject().put("id", "file_agent-" + f.file().id().substring(f.file().id().indexOf('-') + 1))
                    .put("file_id", f.file().id()).put("file_name", f.name()).put("folder_id", f.folder().id())
                    .put("folder_name", f.folder().name()).put("is_open", f.open());
            f.lastAccessedAt().ifPresentOrElse(t -> o.put("last_accessed_at", LettaViews.date(t)), () -> o.putNull("last_accessed_at"));
            if (f.open()) {
                o.put("visible_content", f.visibleContent(limits.viewWindowChars())).put("start_line", f.offset() + 1);
                if (f.length() > 0) {
                    o.put("end_line", f.offset() + f.length());
                } else {
                    o.putNull("end_line");
                }
            } else {
                o.putNull("visible_content").putNull("start_line").putNull("end_line");
            }
        }
        if (more) {
            out.put("next_cursor", shown.get(shown.size() - 1).file().id());
        } else {
            out.putNull("next_cursor");
        }
        Api.json(res, out.put("has_more", more));
    }

    private void open(Agent agent, ServerRequest req, ServerResponse res) {
        String fileId = req.path().pathParameters().get("file_id");
        FileLimits limits = agent.definition().fileLimits();
        List<String> closed;
        try {
            closed = api.store.folders().agents().open(agent.scope(), fileId, 0, 0, limits.maxFilesOpen());
        } catch (NotFoundException e) {
            throw ApiException.notFound("File with id=" + fileId + " not found.");
        }
        ArrayNode out = Body.JSON.createArrayNode();
        closed.forEach(out::add);
        Api.json(res, out);
    }

    private void close(Agent agent, ServerRequest req, ServerResponse res) {
        String fileId = req.path().pathParameters().get("file_id");
        try {
            api.store.folders().agents().close(agent.scope(), fileId);
        } catch (NotFoundException e) {
            throw ApiException.notFound("File with id=" + fileId + " not found.");
        }
        Api.json(res, Body.JSON.createObjectNode().put("message", "File id=" + fileId + " successfully closed"));
    }

    private void closeAll(Agent agent, ServerRequest req, ServerResponse res) {
        ArrayNode out = Body.JSON.createArrayNode();
        api.store.folders().agents().closeAll(agent.scope(), List.of()).forEach(out::add);
        Api.json(res, out);
    }

    /** The folder of the agent's own user that the path names; a 404 for any other. */
    private Folder own(Agent agent, ServerRequest req) {
        String id = req.path().pathParameters().get("folder_id");
        return api.store.folders().get(agent.userId(), id).orElseThrow(() -> ApiException.notFound("Folder '" + id + "' not found."));
    }

    /**
     * Fills an {@code AgentState}'s {@code sources} with the folders attached to the agent and its memory's
     * {@code file_blocks} with its files (Letta's {@code FileBlock}: the file's name as label, its visible content as
     * value), and adds {@code max_files_open} and {@code per_file_view_window_char_limit}.
     */
    static void fill(ObjectNode state, Api api, Agent agent) {
        ArrayNode sources = state.putArray("sources");
        api.store.folders().agents().attached(agent.scope()).forEach(f -> sources.add(FolderViews.folder(f)));
        FileLimits limits = agent.definition().fileLimits();
        ArrayNode blocks = Body.JSON.createArrayNode();
        for (AgentFile f : api.store.folders().agents().view(agent.scope())) {
            blocks.addObject().put("label", f.name()).put("value", f.visibleContent(limits.viewWindowChars()))
                    .put("limit", limits.viewWindowChars()).put("read_only", true).put("file_id", f.file().id())
                    .put("source_id", f.folder().id()).put("is_open", f.open())
                    .put("last_accessed_at", f.lastAccessedAt().map(LettaViews::date).orElse(null));
        }
        if (state.path("memory").isObject()) {
            ((ObjectNode) state.get("memory")).set("file_blocks", blocks);
        }
        state.put("max_files_open", limits.maxFilesOpen()).put("per_file_view_window_char_limit", limits.viewWindowChars());
    }

    /**
     * The folders a create request names in {@code folder_ids} and {@code source_ids} (Letta's two names), each the user's;
     * a 404 naming the first that is not, before anything is created.
     */
    static List<Folder> requested(Api api, Body body, String user) {
        List<Folder> out = new ArrayList<>();
        for (String field : List.of("folder_ids", "source_ids")) {
            for (String id : body.strings(field).orElse(List.of())) {
                Folder f = api.store.folders().get(user, id).orElseThrow(() -> ApiException.notFound("Folder '" + id
                        + "' (in " + field + ") not found."));
                if (!out.contains(f)) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    /** A modify request's {@code folder_ids} or {@code source_ids}: a 422 pointing to the attach and detach routes. */
    static void refuseInModify(Body body) {
        for (String field : List.of("folder_ids", "source_ids")) {
            if (body.strings(field).filter(l -> !l.isEmpty()).isPresent()) {
                throw body.problem("value_error", field + " is not supported when modifying an agent: attach or detach "
                        + "each folder (PATCH /v1/agents/{agent_id}/folders/attach/{folder_id})", field);
            }
        }
    }
}

package dev.engram.server;

import static io.helidon.http.Method.GET;

import dev.engram.agents.Agent;
import dev.engram.memory.Block;
import dev.engram.memory.BlockVersion;
import dev.engram.memory.MemoryPermission;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An agent's memory as Letta's memory files ({@code /v1/agents/{agent_id}/memory-files/directory|history|content}):
 * Letta keeps each core-memory block of a git-memory agent as the file {@code <label>.md} (a label's {@code /} makes
 * directories), committed at each change. Engram keeps every committed version of a block, so the same view holds: a
 * block is the file {@code <label>.md}, its versions are the file's commits (newest first; a commit's {@code sha} is the
 * version number, its {@code message} what produced it), and its content is Letta's Markdown, a YAML front matter with
 * the block's description (and {@code read_only} when it is) then the value at that version ({@code ref}, {@code HEAD}
 * by default). The directory is listed at {@code HEAD} only.
 */
final class MemoryFileRoutes {
    private static final String HEAD = "HEAD";

    private final Api api;

    MemoryFileRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/memory-files/directory", this::directory))
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/memory-files/history", this::history))
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/memory-files/content", this::content))
                .list();
    }

    /** The immediate entries (down to {@code depth} levels) under {@code path}, directories first, then files, by name. */
    private void directory(Agent agent, ServerRequest req, ServerResponse res) {
        String ref = Query.string(req, "ref").orElse(HEAD);
        if (!ref.equals(HEAD)) {
            throw ApiException.notFound("Ref '" + ref + "' not found: Engram lists an agent's memory files at HEAD; read a "
                    + "file's earlier versions with memory-files/content?ref=<sha from memory-files/history>.");
        }
        int depth = Query.integer(req, "depth", 1, 100).orElse(1);
        String path = Query.string(req, "path").map(p -> p.replaceAll("^/+|/+$", "")).orElse("");
        String prefix = path.isEmpty() ? "" : path + "/";
        Map<String, String> entries = new TreeMap<>();
        boolean exists = path.isEmpty();
        for (Block b : api.store.blocks().list(agent.scope())) {
            String file = b.label() + ".md";
            if (!file.startsWith(prefix)) {
                continue;
            }
            exists = true;
            String[] parts = file.substring(prefix.length()).split("/");
            for (int i = 0; i < Math.min(depth, parts.length); i++) {
                String name = String.join("/", List.of(parts).subList(0, i + 1));
                entries.putIfAbsent(name, i == parts.length - 1 ? "file" : "directory");
            }
        }
        if (!exists) {
            throw ApiException.notFound("Directory '" + path + "' not found in agent '" + agent.id() + "''s memory files.");
        }
        ObjectNode out = Body.JSON.createObjectNode().put("path", path);
        ArrayNode list = out.putArray("entries");
        for (String type : List.of("directory", "file")) {
            entries.forEach((name, t) -> {
                if (t.equals(type)) {
                    list.addObject().put("name", name).put("type", t);
                }
            });
        }
        out.put("depth", depth);
        Api.json(res, out);
    }

    private void history(Agent agent, ServerRequest req, ServerResponse res) {
        String path = filePath(req);
        Block block = block(agent, path);
        int limit = Query.integer(req, "limit", 1, Pages.MAX_LIMIT).orElse(50);
        List<BlockVersion> versions = new ArrayList<>(api.store.blocks().history(agent.scope(), block.label()));
        ObjectNode out = Body.JSON.createObjectNode().put("path", path);
        ArrayNode commits = out.putArray("commits");
        for (int i = versions.size() - 1; i >= 0 && commits.size() < limit; i--) {
            BlockVersion v = versions.get(i);
            commits.addObject().put("sha", String.valueOf(v.version())).put("message", v.operation() + " " + path)
                    .put("timestamp", LettaViews.date(v.committedAt())).putNull("author_name");
        }
        Api.json(res, out);
    }

    private void content(Agent agent, ServerRequest req, ServerResponse res) {
        String path = filePath(req);
        Block block = block(agent, path);
        String ref = Query.string(req, "ref").orElse(HEAD);
        String value = block.value();
        if (!ref.equals(HEAD)) {
            Optional<BlockVersion> at = api.store.blocks().history(agent.scope(), block.label()).stream()
                    .filter(v -> String.valueOf(v.version()).equals(ref)).findFirst();
            value = at.orElseThrow(() -> ApiException.notFound("Ref '" + ref + "' not found for '" + path + "': use HEAD or a "
                    + "sha from memory-files/history.")).value();
        }
        StringBuilder markdown = new StringBuilder("---\ndescription: ");
        markdown.append(Body.JSON.writeValueAsString(block.description())).append('\n');
        if (block.permission() == MemoryPermission.READ_ONLY) {
            markdown.append("read_only: true\n");
        }
        markdown.append("---\n").append(value);
        Api.json(res, Body.JSON.createObjectNode().put("path", path).put("content", markdown.toString()).put("ref", ref));
    }

    private static String filePath(ServerRequest req) {
        return Query.string(req, "file_path").map(p -> p.replaceAll("^/+", "")).orElseThrow(() -> ApiException.invalid(
                "missing", "Field required", "query", "file_path"));
    }

    /** The agent's block the file {@code <label>.md} holds; a 404 for any other path. */
    private Block block(Agent agent, String path) {
        Optional<String> label = path.endsWith(".md") ? Optional.of(path.substring(0, path.length() - 3)) : Optional.empty();
        return label.flatMap(l -> api.store.blocks().get(agent.scope(), l)).orElseThrow(() -> ApiException.notFound(
                "File '" + path + "' not found in agent '" + agent.id() + "''s memory files (each block is <label>.md)."));
    }
}

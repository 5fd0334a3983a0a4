package dev.engram.agents;

import dev.engram.memory.AgentFile;
import dev.engram.memory.AgentFolders;
import dev.engram.memory.FileLimits;
import dev.engram.memory.FileStatus;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.FolderStore;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.TextChunker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The folders of a Letta agent file: its {@code sources} and {@code files} become folders and files of the importing
 * user (each file's {@code content} chunked into searchable passages, as an upload's), attached to the agents whose
 * {@code source_ids}, {@code folder_ids} or {@code files_agents} name them, each file open or closed with its window as
 * its {@code files_agents} entry says; and on export, the folders attached to the agents written the same way.
 */
final class LettaFolders {
    private LettaFolders() {
    }

    /**
     * Imports the file's sources and files for {@code userId} and attaches them to {@code created} (the agents of
     * {@code agentNodes}, in order); what cannot be imported (a file whose source is not in the file) is listed in
     * {@code dropped}.
     */
    static void importInto(JsonNode root, List<JsonNode> agentNodes, List<Agent> created, String userId, MemoryStore store,
            AgentRegistry agents, List<DroppedGrant> dropped) {
        if (created.isEmpty()) {
            return;
        }
        FolderStore folders = store.folders();
        String first = created.getFirst().definition().name();
        Map<String, Folder> sources = new HashMap<>();
        for (JsonNode s : root.path("sources")) {
            String id = s.path("id").asString("");
            String name = freeName(folders, userId, s.path("name").asString(id));
            Metadata metadata = s.path("metadata").isObject() ? Metadata.parse(s.get("metadata").toString()) : Metadata.empty();
            sources.put(id, folders.create(userId, name, s.path("description").asString(""),
                    s.path("instructions").asString(""), metadata));
        }
        Map<String, FolderFile> files = new HashMap<>();
        for (JsonNode f : root.path("files")) {
            String id = f.path("id").asString("");
            Folder folder = sources.get(f.path("source_id").asString(""));
            if (folder == null) {
                dropped.add(new DroppedGrant(first, "files[id=" + id + "]", f.path("file_name").asString(id),
                        "its source is not in the file"));
                continue;
            }
            files.put(id, file(folders, userId, folder, f));
        }
        for (int k = 0; k < created.size(); k++) {
            JsonNode a = agentNodes.get(k);
            Agent agent = created.get(k);
            Set<String> attach = new LinkedHashSet<>();
            for (String field : List.of("source_ids", "folder_ids")) {
                a.path(field).forEach(id -> attach.add(id.asString("")));
            }
            a.path("files_agents").forEach(fa -> attach.add(fa.path("source_id").asString("")));
            for (String id : attach) {
                if (sources.containsKey(id)) {
                    agent = AgentFolderTools.attach(agents, store, userId, agent.id(), sources.get(id).id());
                } else if (!id.isEmpty()) {
                    dropped.add(new DroppedGrant(agent.definition().name(), "agents[" + k + "].source_ids", id,
                            "that source is not in the file"));
                }
            }
            if (!a.path("files_agents").isEmpty()) {
                states(a.path("files_agents"), files, agent, store.folders().agents());
            }
        }
    }

    private static FolderFile file(FolderStore folders, String userId, Folder folder, JsonNode f) {
        String content = f.path("content").asString("");
        String name = f.path("file_name").asString(f.path("id").asString(""));
        name = folder.name() + "/" + (name.contains("/") ? name.substring(name.lastIndexOf('/') + 1) : name); // as an upload's
        long size = f.path("file_size").asLong(content.getBytes(StandardCharsets.UTF_8).length);
        FolderFile file = folders.addFile(userId, folder.id(), name, f.path("original_file_name").asString(name),
                f.path("file_type").asString("text/plain"), size);
        List<String> chunks = content.isBlank() ? List.of() : TextChunker.chunk(content, TextChunker.DEFAULT_CHARS);
        folders.text(userId, file.id(), content, chunks.size());
        if (!chunks.isEmpty()) {
            folders.addPassages(userId, file.id(), chunks);
        }
        folders.embedded(userId, file.id(), chunks.size());
        return folders.status(userId, file.id(), FileStatus.COMPLETED);
    }

    /** Each file open or closed as the agent's {@code files_agents} say, with its window; the others closed. */
    private static void states(JsonNode filesAgents, Map<String, FolderFile> files, Agent agent, AgentFolders attached) {
        attached.closeAll(agent.scope(), List.of());
        int max = agent.definition().fileLimits().maxFilesOpen();
        for (JsonNode fa : filesAgents) {
            FolderFile f = files.get(fa.path("file_id").asString(""));
            if (f == null || !fa.path("is_open").asBoolean(false)) {
                continue;
            }
            int start = fa.path("start_line").isNumber() ? Math.max(1, fa.get("start_line").asInt()) : 1;
            int end = fa.path("end_line").isNumber() ? fa.get("end_line").asInt() : 0;
            int lines = f.text().isEmpty() ? 0 : (int) f.text().lines().count();
            int offset = start - 1 < lines ? start - 1 : 0;
            attached.open(agent.scope(), f.id(), offset, end > offset ? end - offset : 0, max);
        }
    }

    private static String freeName(FolderStore folders, String userId, String name) {
        String base = name.isBlank() ? "imported" : name;
        String candidate = base;
        for (int k = 2; folders.byName(userId, candidate).isPresent(); k++) {
            candidate = base + "-" + k;
        }
        return candidate;
    }

    /** {@code written} (a file of {@code agents}, in order) with the folders attached to them, their files and states. */
    static String export(String written, List<Agent> agents, MemoryStore store) {
        ObjectNode root = (ObjectNode) Heartbeats.JSON.readTree(written);
        ArrayNode sources = root.putArray("sources");
        ArrayNode files = root.putArray("files");
        Map<String, String> sourceIds = new LinkedHashMap<>();
        Map<String, String> fileIds = new LinkedHashMap<>();
        int fileAgent = 0;
        for (int i = 0; i < agents.size(); i++) {
            Agent agent = agents.get(i);
            ObjectNode a = (ObjectNode) root.path("agents").get(i);
            ArrayNode sourceList = a.putArray("source_ids");
            for (Folder folder : store.folders().agents().attached(agent.scope())) {
                String id = sourceIds.computeIfAbsent(folder.id(), k -> "source-" + sourceIds.size());
                sourceList.add(id);
                if (sources.valueStream().noneMatch(s -> s.path("id").asString().equals(id))) {
                    ObjectNode s = sources.addObject().put("id", id).put("name", folder.name())
                            .put("description", folder.description()).put("instructions", folder.instructions());
                    s.set("metadata", Heartbeats.JSON.readTree(folder.metadata().json()));
                }
            }
            ArrayNode states = a.putArray("files_agents");
            FileLimits limits = agent.definition().fileLimits();
            for (AgentFile f : store.folders().agents().files(agent.scope())) {
                String fileId = fileIds.computeIfAbsent(f.file().id(), k -> {
                    String id = "file-" + fileIds.size();
                    files.addObject().put("id", id).put("source_id", sourceIds.get(f.folder().id()))
                            .put("file_name", f.file().name()).put("original_file_name", f.file().originalName())
                            .put("file_type", f.file().mediaType()).put("file_size", f.file().sizeBytes())
                            .put("processing_status", "completed").put("content", f.file().text());
                    return id;
                });
                ObjectNode s = states.addObject().put("id", "file_agent-" + fileAgent++).put("agent_id", "agent-" + i)
                        .put("file_id", fileId).put("source_id", sourceIds.get(f.folder().id())).put("file_name", f.name())
                        .put("is_open", f.open());
                if (f.open()) {
                    s.put("visible_content", f.visibleContent(limits.viewWindowChars())).put("start_line", f.offset() + 1);
                    if (f.length() > 0) {
                        s.put("end_line", f.offset() + f.length());
                    }
                }
                f.lastAccessedAt().ifPresent(t -> s.put("last_accessed_at", t.toString()));
            }
        }
        return root.toPrettyString();
    }
}

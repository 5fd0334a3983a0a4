package dev.engram.server;

import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.FilePassage;
import dev.engram.memory.FileStatus;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.TextChunker;
import tools.jackson.databind.node.ObjectNode;

/** Letta's views of folders ({@code Folder}, also its {@code Source}), files ({@code FileMetadata}) and file passages. */
final class FolderViews {
    private FolderViews() {
    }

    /** Letta's {@code Folder} (and {@code Source}: the same fields). */
    static ObjectNode folder(Folder f) {
        ObjectNode o = Body.JSON.createObjectNode().put("id", f.id()).put("name", f.name())
                .put("description", f.description()).put("instructions", f.instructions());
        o.set("metadata", SearchParams.json(f.metadata()));
        EmbeddingModel model = EmbeddingModel.defaultModel();
        o.putObject("embedding_config").put("embedding_endpoint_type", "hugging-face").putNull("embedding_endpoint")
                .put("embedding_model", model.shortName()).put("embedding_dim", model.dimensions())
                .put("embedding_chunk_size", TextChunker.DEFAULT_CHARS).put("handle", "engram/" + model.shortName())
                .put("batch_size", 32);
        o.put("vector_db_provider", "native").put("created_by_id", f.userId()).put("last_updated_by_id", f.userId())
                .put("created_at", LettaViews.date(f.createdAt())).put("updated_at", LettaViews.date(f.updatedAt()));
        return o;
    }

    /** Letta's {@code FileMetadata}; its text as {@code content} only when asked for. */
    static ObjectNode file(FolderFile f, boolean withContent) {
        ObjectNode o = Body.JSON.createObjectNode().put("id", f.id()).put("source_id", f.folderId())
                .put("file_name", f.name()).put("original_file_name", f.originalName()).putNull("file_path")
                .put("file_type", f.mediaType()).put("file_size", f.sizeBytes()).putNull("file_creation_date")
                .putNull("file_last_modified_date").put("processing_status", f.status().wire());
        if (f.status() == FileStatus.ERROR) {
            o.put("error_message", f.error());
        } else {
            o.putNull("error_message");
        }
        o.put("total_chunks", f.totalChunks()).put("chunks_embedded", f.chunksEmbedded());
        if (withContent) {
            o.put("content", f.text());
        } else {
            o.putNull("content");
        }
        return o.put("created_at", LettaViews.date(f.createdAt())).put("updated_at", LettaViews.date(f.updatedAt()));
    }

    /** Letta's {@code Passage} of a file's chunk. */
    static ObjectNode passage(FilePassage p, String fileName) {
        ObjectNode o = Body.JSON.createObjectNode().put("id", p.id()).put("text", p.text()).putNull("embedding")
                .putNull("embedding_config");
        o.putArray("tags");
        o.putNull("archive_id").put("source_id", p.folderId()).put("file_id", p.fileId()).put("file_name", fileName);
        o.putObject("metadata").put("position", p.position());
        return o.put("is_deleted", false).put("created_by_id", p.userId()).put("last_updated_by_id", p.userId())
                .put("created_at", LettaViews.date(p.createdAt())).put("updated_at", LettaViews.date(p.createdAt()));
    }
}

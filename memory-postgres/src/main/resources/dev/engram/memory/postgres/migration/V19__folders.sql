-- Engram memory schema on PostgreSQL, version 19: folders of uploaded files, their files with status and whole text,
-- and the passages each text is chunked into (SQLite's V21).

CREATE TABLE folders (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,
    instructions TEXT NOT NULL, metadata TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE UNIQUE INDEX folders_by_name ON folders (user_id, name);

CREATE TABLE files (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, folder_id TEXT NOT NULL, name TEXT NOT NULL,
    original_name TEXT NOT NULL, media_type TEXT NOT NULL, size_bytes BIGINT NOT NULL, status TEXT NOT NULL,
    error TEXT NOT NULL, total_chunks INTEGER NOT NULL, chunks_embedded INTEGER NOT NULL, text TEXT NOT NULL,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE INDEX files_by_folder ON files (user_id, folder_id, created_at);

CREATE TABLE file_passages (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, folder_id TEXT NOT NULL, file_id TEXT NOT NULL,
    position INTEGER NOT NULL, text TEXT NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX file_passages_by_file ON file_passages (file_id, position);
CREATE INDEX file_passages_by_folder ON file_passages (user_id, folder_id);

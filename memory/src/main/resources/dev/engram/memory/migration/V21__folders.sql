-- Engram memory schema, version 21: folders of uploaded files (Letta's folders and sources), each file with its
-- processing status and whole text, and the passages its text is chunked into (indexed for search by the change log).

CREATE TABLE folders (
    id           TEXT    NOT NULL PRIMARY KEY,  -- source-<uuid>
    user_id      TEXT    NOT NULL,
    name         TEXT    NOT NULL,              -- unique per user
    description  TEXT    NOT NULL,
    instructions TEXT    NOT NULL,
    metadata     TEXT    NOT NULL,              -- JSON object
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX folders_by_name ON folders (user_id, name);

CREATE TABLE files (
    id              TEXT    NOT NULL PRIMARY KEY,  -- file-<uuid>
    user_id         TEXT    NOT NULL,
    folder_id       TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    original_name   TEXT    NOT NULL,
    media_type      TEXT    NOT NULL,
    size_bytes      INTEGER NOT NULL,
    status          TEXT    NOT NULL,              -- FileStatus
    error           TEXT    NOT NULL,              -- empty unless status is ERROR
    total_chunks    INTEGER NOT NULL,
    chunks_embedded INTEGER NOT NULL,
    text            TEXT    NOT NULL,              -- the whole parsed text; empty until parsed
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX files_by_folder ON files (user_id, folder_id, created_at);

CREATE TABLE file_passages (
    id         TEXT    NOT NULL PRIMARY KEY,  -- passage-<uuid>
    user_id    TEXT    NOT NULL,
    folder_id  TEXT    NOT NULL,
    file_id    TEXT    NOT NULL,
    position   INTEGER NOT NULL,
    text       TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX file_passages_by_file ON file_passages (file_id, position);
CREATE INDEX file_passages_by_folder ON file_passages (user_id, folder_id);

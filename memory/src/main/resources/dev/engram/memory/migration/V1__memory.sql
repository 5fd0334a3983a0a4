-- Engram memory schema, version 1. Timestamps are microseconds since the epoch (UTC).

CREATE TABLE blocks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id     TEXT    NOT NULL,
    agent_id    TEXT    NOT NULL,
    label       TEXT    NOT NULL,
    description TEXT    NOT NULL,
    value       TEXT    NOT NULL,
    char_limit  INTEGER NOT NULL CHECK (char_limit > 0),
    type        TEXT    NOT NULL,
    permission  TEXT    NOT NULL,
    pinned      INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    UNIQUE (user_id, agent_id, label)
);

CREATE TABLE block_versions (
    block_id     INTEGER NOT NULL REFERENCES blocks (id) ON DELETE CASCADE,
    version      INTEGER NOT NULL,
    value        TEXT    NOT NULL,
    operation    TEXT    NOT NULL,
    committed_at INTEGER NOT NULL,
    PRIMARY KEY (block_id, version)
);

CREATE TABLE block_shares (
    block_id   INTEGER NOT NULL REFERENCES blocks (id) ON DELETE CASCADE,
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    permission TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (block_id, agent_id)
);
CREATE INDEX block_shares_agent ON block_shares (user_id, agent_id);

CREATE TABLE archival (
    id         TEXT    PRIMARY KEY,
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    label      TEXT,
    content    TEXT    NOT NULL,
    tags       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX archival_label ON archival (user_id, agent_id, label) WHERE label IS NOT NULL;
CREATE INDEX archival_scope ON archival (user_id, agent_id, created_at);

CREATE TABLE notes (
    id         TEXT    PRIMARY KEY,
    user_id    TEXT    NOT NULL,
    content    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX notes_user ON notes (user_id, created_at);

CREATE TABLE messages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      TEXT    NOT NULL,
    agent_id     TEXT    NOT NULL,
    session_id   TEXT    NOT NULL,
    role         TEXT    NOT NULL,
    content      TEXT    NOT NULL,
    tool_calls   TEXT,
    tool_call_id TEXT,
    created_at   INTEGER NOT NULL,
    in_context   INTEGER NOT NULL
);
CREATE INDEX messages_scope ON messages (user_id, agent_id, id);
CREATE INDEX messages_scope_time ON messages (user_id, agent_id, created_at);

CREATE TABLE changes (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    entity    TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    op        TEXT NOT NULL,
    user_id   TEXT NOT NULL,
    agent_id  TEXT
);

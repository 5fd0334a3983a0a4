-- Engram memory schema, version 22: archives (Letta's), named collections of passages a user keeps and attaches to
-- several of the user's agents. An archive's passages are rows of the archival table whose agent_id is the archive's id.

CREATE TABLE archives (
    id          TEXT    NOT NULL PRIMARY KEY,  -- archive-<uuid>
    user_id     TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    description TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX archives_by_user ON archives (user_id, created_at);

CREATE TABLE archive_agents (
    archive_id TEXT    NOT NULL REFERENCES archives (id) ON DELETE CASCADE,
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    seq        INTEGER NOT NULL,                -- attachment order
    PRIMARY KEY (archive_id, agent_id)
);
CREATE INDEX archive_agents_by_agent ON archive_agents (user_id, agent_id, seq);

-- Engram memory schema, version 2: agent definitions (an opaque JSON document per agent).

CREATE TABLE agents (
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    definition TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, agent_id),
    UNIQUE (user_id, name)
);

-- Engram memory schema, version 9: several agents of one user may share a name (as in Letta); ids identify agents.
-- SQLite cannot drop a constraint: the table is rebuilt without UNIQUE (user_id, name).

CREATE TABLE agents_named (
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    definition TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, agent_id)
);
INSERT INTO agents_named (user_id, agent_id, name, definition, created_at, updated_at)
    SELECT user_id, agent_id, name, definition, created_at, updated_at FROM agents;
DROP TABLE agents;
ALTER TABLE agents_named RENAME TO agents;
CREATE INDEX agents_name ON agents (user_id, name);

-- Engram memory schema, version 24: multi-agent groups (Letta's), several of a user's agents answering together under a
-- manager. Member and shared block ids are JSON arrays of text, in order; the manager's settings are Letta's.

CREATE TABLE agent_groups (
    id                        TEXT    NOT NULL PRIMARY KEY,  -- group-<uuid>
    user_id                   TEXT    NOT NULL,
    description               TEXT    NOT NULL,
    manager_type              TEXT    NOT NULL,              -- ROUND_ROBIN, SUPERVISOR, DYNAMIC, SLEEPTIME
    manager_agent_id          TEXT,
    max_turns                 INTEGER,
    termination_token         TEXT,
    sleeptime_agent_frequency INTEGER,
    agent_ids                 TEXT    NOT NULL,              -- JSON array, speaking order
    shared_block_ids          TEXT    NOT NULL,              -- JSON array
    hidden                    INTEGER NOT NULL,
    turns_counter             INTEGER NOT NULL,
    created_at                INTEGER NOT NULL,
    updated_at                INTEGER NOT NULL
);
CREATE INDEX agent_groups_by_user ON agent_groups (user_id, created_at);

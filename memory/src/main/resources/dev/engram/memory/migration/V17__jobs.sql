-- Engram memory schema, version 17: background jobs (Letta's jobs), each stored with its input when it is accepted, so
-- that a job a crash interrupted is found again at the next start and resumed or failed, never lost.

CREATE TABLE jobs (
    id           TEXT    NOT NULL PRIMARY KEY,  -- job-<uuid>
    user_id      TEXT    NOT NULL,
    agent_id     TEXT,                          -- NULL for a job of the user's own
    kind         TEXT    NOT NULL,              -- what it does, such as memory_add
    status       TEXT    NOT NULL,              -- JobStatus
    input        TEXT    NOT NULL,              -- JSON, as its kind defines it
    result       TEXT    NOT NULL,              -- JSON: what it has done so far, then in the end
    error        TEXT    NOT NULL,              -- why it failed; empty otherwise
    attempts     INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    completed_at INTEGER                        -- NULL while it is active
);
CREATE INDEX jobs_by_user ON jobs (user_id, created_at);
CREATE INDEX jobs_active ON jobs (status, created_at) WHERE completed_at IS NULL;

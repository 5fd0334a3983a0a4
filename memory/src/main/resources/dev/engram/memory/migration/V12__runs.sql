-- Engram memory schema, version 12: runs (Letta's runs, one per request that starts or resumes a turn) and the events
-- of the streamed ones, kept for a while so that a client can resume a stream where it broke.

CREATE TABLE runs (
    id              TEXT    NOT NULL PRIMARY KEY,  -- run-<uuid>
    user_id         TEXT    NOT NULL,
    agent_id        TEXT    NOT NULL,
    conversation_id TEXT    NOT NULL,              -- a conversation's id, or 'default' (the agent's own history)
    background      INTEGER NOT NULL,              -- 1 when the client asked the run to go on without it
    status          TEXT    NOT NULL,              -- RunStatus
    stop_reason     TEXT    NOT NULL,              -- Letta's stop reason; empty while it runs
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,              -- its server's last write: a running run not updated has lost its server
    completed_at    INTEGER                        -- NULL while it runs
);
CREATE INDEX runs_by_conversation ON runs (user_id, agent_id, conversation_id, created_at);
CREATE INDEX runs_by_completion ON runs (completed_at);

CREATE TABLE run_events (
    run_id TEXT    NOT NULL,
    seq    INTEGER NOT NULL,  -- 1, 2, ... in the run (Letta's seq_id)
    event  TEXT    NOT NULL,  -- the SSE event name; empty for an unnamed event
    data   TEXT    NOT NULL,
    PRIMARY KEY (run_id, seq)
);

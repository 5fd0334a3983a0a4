-- Engram memory schema, version 23: the steps of runs (Letta's steps), one per call to an agent's model: what it was
-- asked (a compact reference), what it answered, tokens, timings and feedback. Kept and purged with their run.

CREATE TABLE steps (
    id                TEXT    NOT NULL PRIMARY KEY,  -- step-<uuid>
    user_id           TEXT    NOT NULL,
    agent_id          TEXT    NOT NULL,
    run_id            TEXT    NOT NULL,
    model             TEXT    NOT NULL,
    provider          TEXT    NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    request           TEXT    NOT NULL,              -- JSON: the prompt's stored message ids, the tools offered
    response          TEXT    NOT NULL,              -- JSON: the model's text and tool calls
    message_ids       TEXT    NOT NULL,              -- the ids of the messages the step stored, comma-separated
    stop_reason       TEXT    NOT NULL,
    status            TEXT    NOT NULL,              -- success, failed, cancelled
    started_at        INTEGER NOT NULL,
    model_ns          INTEGER NOT NULL,
    completed_at      INTEGER NOT NULL,
    feedback          TEXT    NOT NULL,              -- positive, negative, or empty
    tags              TEXT    NOT NULL               -- JSON array
);
CREATE INDEX steps_by_run ON steps (run_id, started_at);
CREATE INDEX steps_by_user ON steps (user_id, started_at);
CREATE INDEX runs_by_user ON runs (user_id, created_at);

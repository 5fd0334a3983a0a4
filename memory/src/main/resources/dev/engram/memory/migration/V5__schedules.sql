-- Engram memory schema, version 5: scheduled messages (reminders, recurring checks) of each agent.

CREATE TABLE schedules (
    id            TEXT    NOT NULL PRIMARY KEY,
    user_id       TEXT    NOT NULL,
    agent_id      TEXT    NOT NULL,
    session_id    TEXT    NOT NULL,
    message       TEXT    NOT NULL,
    timing        TEXT    NOT NULL, -- JSON: {"once": micros} or {"cron": expression, "zone": zone id}
    status        TEXT    NOT NULL, -- ACTIVE, DONE, CANCELLED
    next_run_at   INTEGER,          -- set exactly when ACTIVE
    last_run_at   INTEGER,
    runs          INTEGER NOT NULL,
    claimed_until INTEGER,          -- while a scheduler delivers it
    version       INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

CREATE INDEX schedules_user ON schedules (user_id);

-- The scheduler's question, every few seconds: which active schedules are due?
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE status = 'ACTIVE';

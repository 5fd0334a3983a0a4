-- Engram memory schema on PostgreSQL, version 10: runs and the events of the streamed ones (SQLite's V12).

CREATE TABLE runs (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
    background BOOLEAN NOT NULL, status TEXT NOT NULL, stop_reason TEXT NOT NULL, created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL, completed_at BIGINT);
CREATE INDEX runs_by_conversation ON runs (user_id, agent_id, conversation_id, created_at);
CREATE INDEX runs_by_completion ON runs (completed_at);

CREATE TABLE run_events (run_id TEXT NOT NULL, seq BIGINT NOT NULL, event TEXT NOT NULL, data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq));

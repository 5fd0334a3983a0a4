-- Engram memory schema on PostgreSQL, version 21: the steps of runs (SQLite's V23).

CREATE TABLE steps (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, run_id TEXT NOT NULL,
    model TEXT NOT NULL, provider TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    request TEXT NOT NULL, response TEXT NOT NULL, message_ids TEXT NOT NULL, stop_reason TEXT NOT NULL,
    status TEXT NOT NULL, started_at BIGINT NOT NULL, model_ns BIGINT NOT NULL, completed_at BIGINT NOT NULL,
    feedback TEXT NOT NULL, tags TEXT NOT NULL);
CREATE INDEX steps_by_run ON steps (run_id, started_at);
CREATE INDEX steps_by_user ON steps (user_id, started_at);
CREATE INDEX runs_by_user ON runs (user_id, created_at);

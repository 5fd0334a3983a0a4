-- Engram memory schema on PostgreSQL, version 13: canvas artefacts, every version kept (SQLite's V15).

CREATE TABLE canvases (user_id TEXT NOT NULL, agent_id TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,
    title TEXT NOT NULL, content TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (user_id, agent_id, name, version));

-- Engram memory schema on PostgreSQL, version 3: the server's identities (SQLite's V7).

CREATE TABLE identities (user_id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, created_at BIGINT NOT NULL);

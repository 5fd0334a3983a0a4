-- Engram memory schema on PostgreSQL, version 2: the server's API keys (SQLite's V6).

CREATE TABLE api_keys (
    id TEXT PRIMARY KEY, user_id TEXT, name TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL);

-- Engram memory schema on PostgreSQL, version 6: registered model providers (SQLite's V9).

CREATE TABLE providers (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, type TEXT NOT NULL, base_url TEXT NOT NULL,
    sealed_api_key TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);

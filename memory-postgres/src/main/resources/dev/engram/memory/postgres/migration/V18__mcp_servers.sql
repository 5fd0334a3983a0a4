-- Engram memory schema on PostgreSQL, version 18: each user's MCP servers, their secrets sealed (SQLite's V20).

CREATE TABLE mcp_servers (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
    config TEXT NOT NULL, sealed_secrets TEXT NOT NULL, tools TEXT NOT NULL, created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL, UNIQUE (user_id, name));

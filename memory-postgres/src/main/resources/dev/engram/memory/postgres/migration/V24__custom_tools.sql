-- Engram memory schema on PostgreSQL, version 24: the tools each user wrote from source (SQLite's V26).

CREATE TABLE custom_tools (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,
    source_type TEXT NOT NULL, source_code TEXT NOT NULL, json_schema TEXT NOT NULL, args_json_schema TEXT NOT NULL,
    tags TEXT NOT NULL, return_char_limit INTEGER NOT NULL, pip_requirements TEXT NOT NULL, npm_requirements TEXT NOT NULL,
    default_requires_approval BOOLEAN NOT NULL, metadata TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
    UNIQUE (user_id, name));

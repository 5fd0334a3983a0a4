-- Engram memory schema, version 20: the MCP servers each user registered, their secrets sealed by the server.

CREATE TABLE mcp_servers (
    id             TEXT    NOT NULL PRIMARY KEY,
    user_id        TEXT    NOT NULL,
    name           TEXT    NOT NULL,
    type           TEXT    NOT NULL,          -- stdio, sse or streamable_http
    config         TEXT    NOT NULL,          -- JSON without secrets: command and args, or the URL
    sealed_secrets TEXT    NOT NULL,          -- AES-GCM, sealed by the server with the operator's key; empty when none
    tools          TEXT    NOT NULL,          -- JSON array: the tools the server listed last
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    UNIQUE (user_id, name)
);

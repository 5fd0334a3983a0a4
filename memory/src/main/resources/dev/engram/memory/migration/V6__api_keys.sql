-- Engram memory schema, version 6: the server's API keys, each bound to a user (or an admin key), stored hashed.

CREATE TABLE api_keys (
    id         TEXT    NOT NULL PRIMARY KEY,
    user_id    TEXT,                      -- NULL: an admin key
    name       TEXT    NOT NULL,
    key_hash   TEXT    NOT NULL UNIQUE,   -- SHA-256 of the key, hex; the key itself is never stored
    created_at INTEGER NOT NULL
);

-- Engram memory schema, version 8: conversations, several with one agent over the same memory. A conversation's
-- messages are the messages whose session_id is its id.

CREATE TABLE conversations (
    id         TEXT    NOT NULL PRIMARY KEY,  -- conv-<uuid>, the session id of its messages
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    summary    TEXT    NOT NULL,              -- empty when none was given
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX conversations_by_user ON conversations (user_id, created_at);

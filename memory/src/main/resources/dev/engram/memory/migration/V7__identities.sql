-- Engram memory schema, version 7: the server's identities, a display name and kind per user.

CREATE TABLE identities (
    user_id    TEXT    NOT NULL PRIMARY KEY,
    name       TEXT    NOT NULL,
    type       TEXT    NOT NULL,             -- Letta's identity_type: user, org or other
    created_at INTEGER NOT NULL
);

-- Engram memory schema, version 27: an identity's properties (Letta's identity properties, a JSON array of
-- {"key", "value", "type"} as the server stored them).

ALTER TABLE identities ADD COLUMN properties TEXT NOT NULL DEFAULT '[]';

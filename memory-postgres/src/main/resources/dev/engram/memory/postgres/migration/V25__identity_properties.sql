-- Engram memory schema on PostgreSQL, version 25: an identity's properties (SQLite's V27).

ALTER TABLE identities ADD COLUMN properties TEXT NOT NULL DEFAULT '[]';

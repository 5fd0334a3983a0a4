-- Engram memory schema (PostgreSQL), version 16: metadata on conversations (a JSON object, '{}' when none), which
-- clients and the agent's sessions_patch tool set beside the summary.
ALTER TABLE conversations ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';

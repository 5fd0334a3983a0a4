-- Engram memory schema on PostgreSQL, version 5: notes counted per user (quotas, checked inside each write) from an index.

CREATE INDEX notes_user ON notes (user_id);

-- Engram memory schema on PostgreSQL, version 26: the change log by user. An agent follows the log for its own prompt
-- (ChangeLog.since(userId, ...)): with this index it reads its user's events since its last look, not every user's.
-- No SQLite counterpart: SQLite reads the user's events from the log's key range in place, in the process (no round trip,
-- nothing sent back that is filtered out).

CREATE INDEX changes_user ON changes (user_id, seq);

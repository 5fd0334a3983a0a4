-- Engram memory schema on PostgreSQL, version 4: archival entries counted per user (quotas) from an index.

CREATE INDEX archival_user ON archival (user_id, agent_id);

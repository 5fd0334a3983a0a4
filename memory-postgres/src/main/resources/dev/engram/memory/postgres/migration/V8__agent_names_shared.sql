-- Engram memory schema on PostgreSQL, version 6: several agents of one user may share a name (as in Letta); ids
-- identify agents.

ALTER TABLE agents DROP CONSTRAINT agents_user_id_name_key;
CREATE INDEX agents_name ON agents (user_id, name);

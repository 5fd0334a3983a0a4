-- Engram memory schema, version 3: the in-context messages of a scope without scanning its whole history.

CREATE INDEX messages_in_context ON messages (user_id, agent_id, id) WHERE in_context = 1;

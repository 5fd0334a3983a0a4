-- Engram memory schema on PostgreSQL, version 22: multi-agent groups (SQLite's V24), several of a user's agents answering
-- together under a manager. Member and shared block ids are JSON arrays of text, in order.

CREATE TABLE agent_groups (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, description TEXT NOT NULL,
    manager_type TEXT NOT NULL, manager_agent_id TEXT, max_turns INTEGER, termination_token TEXT,
    sleeptime_agent_frequency INTEGER, agent_ids TEXT NOT NULL, shared_block_ids TEXT NOT NULL, hidden BOOLEAN NOT NULL,
    turns_counter INTEGER NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE INDEX agent_groups_by_user ON agent_groups (user_id, created_at);

-- Engram memory schema on PostgreSQL, version 12: each agent's task list and goals with their checkpoints and
-- decisions (SQLite's V14);
-- seq keeps the order of insertion, as SQLite's rowid does.

CREATE TABLE todos (user_id TEXT NOT NULL, agent_id TEXT NOT NULL, position INTEGER NOT NULL, content TEXT NOT NULL,
    status TEXT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (user_id, agent_id, position));

CREATE TABLE goals (seq BIGSERIAL, id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, title TEXT NOT NULL,
    description TEXT NOT NULL, completed BOOLEAN NOT NULL, is_current BOOLEAN NOT NULL, outcome TEXT NOT NULL,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, completed_at BIGINT);
CREATE INDEX goals_by_agent ON goals (user_id, agent_id, seq);

CREATE TABLE goal_entries (seq BIGSERIAL, id TEXT PRIMARY KEY, goal_id TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT NOT NULL,
    kind TEXT NOT NULL, text TEXT NOT NULL, rationale TEXT NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX goal_entries_by_goal ON goal_entries (goal_id, kind, seq);

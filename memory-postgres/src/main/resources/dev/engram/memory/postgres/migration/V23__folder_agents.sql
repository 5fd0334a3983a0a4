-- Engram memory schema on PostgreSQL, version 23: folders attached to agents and each agent's state of each file of
-- them (SQLite's V25): open or closed, the window of lines it sees, when it last used the file.

CREATE TABLE folder_agents (folder_id TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT NOT NULL,
    created_at BIGINT NOT NULL, seq BIGSERIAL NOT NULL, PRIMARY KEY (folder_id, agent_id));
CREATE INDEX folder_agents_by_agent ON folder_agents (user_id, agent_id, seq);

CREATE TABLE agent_files (user_id TEXT NOT NULL, agent_id TEXT NOT NULL, file_id TEXT NOT NULL, folder_id TEXT NOT NULL,
    is_open BOOLEAN NOT NULL, view_offset INTEGER NOT NULL, view_length INTEGER NOT NULL, last_accessed_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, agent_id, file_id));
CREATE INDEX agent_files_by_folder ON agent_files (folder_id);
CREATE INDEX agent_files_by_file ON agent_files (file_id);

-- Engram memory schema, version 25: folders attached to agents (Letta's sources_agents), and each agent's state of
-- each file of them (Letta's files_agents): open or closed, the window of lines it sees, when it last used the file.

CREATE TABLE folder_agents (
    folder_id  TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    seq        INTEGER NOT NULL,                -- attachment order
    PRIMARY KEY (folder_id, agent_id)
);
CREATE INDEX folder_agents_by_agent ON folder_agents (user_id, agent_id, seq);

CREATE TABLE agent_files (
    user_id          TEXT    NOT NULL,
    agent_id         TEXT    NOT NULL,
    file_id          TEXT    NOT NULL,
    folder_id        TEXT    NOT NULL,
    is_open          INTEGER NOT NULL,          -- 0 or 1
    view_offset      INTEGER NOT NULL,          -- first line of the window, 0-based
    view_length      INTEGER NOT NULL,          -- lines in the window; 0: to the end
    last_accessed_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, agent_id, file_id)
);
CREATE INDEX agent_files_by_folder ON agent_files (folder_id);
CREATE INDEX agent_files_by_file ON agent_files (file_id);

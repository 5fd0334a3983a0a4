-- Engram memory schema, version 14: what each agent is working on. Its task list (replaced as a whole by the
-- write_todos tool) and its goals, one of them current, with the checkpoints and decisions recorded on them.

CREATE TABLE todos (
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    position   INTEGER NOT NULL,  -- 0, 1, ... in the list's order
    content    TEXT    NOT NULL,
    status     TEXT    NOT NULL,  -- TodoStatus
    updated_at INTEGER NOT NULL,  -- when the list was last written
    PRIMARY KEY (user_id, agent_id, position)
);

CREATE TABLE goals (
    id           TEXT    NOT NULL PRIMARY KEY,  -- goal-<uuid>
    user_id      TEXT    NOT NULL,
    agent_id     TEXT    NOT NULL,
    title        TEXT    NOT NULL,
    description  TEXT    NOT NULL,
    completed    INTEGER NOT NULL,              -- 1 once completed
    is_current   INTEGER NOT NULL,              -- 1 for the agent's current goal (at most one)
    outcome      TEXT    NOT NULL,              -- empty while open
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    completed_at INTEGER                        -- NULL while open
);
CREATE INDEX goals_by_agent ON goals (user_id, agent_id);  -- read in rowid (insertion) order

CREATE TABLE goal_entries (
    id         TEXT    NOT NULL PRIMARY KEY,  -- gent-<uuid>
    goal_id    TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    kind       TEXT    NOT NULL,              -- CHECKPOINT or DECISION
    text       TEXT    NOT NULL,
    rationale  TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX goal_entries_by_goal ON goal_entries (goal_id, kind);  -- read newest (highest rowid) first

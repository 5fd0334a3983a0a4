-- Engram memory schema, version 15: canvas artefacts, the HTML documents an agent writes for its user to open. Every
-- write of a name is a new version; the earlier ones are kept.

CREATE TABLE canvases (
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    name       TEXT    NOT NULL,  -- unique among the agent's artefacts (CanvasStore.NAME_PATTERN)
    version    INTEGER NOT NULL,  -- 1, 2, ... per name
    title      TEXT    NOT NULL,  -- empty when none was given
    content    TEXT    NOT NULL,  -- the HTML document, at most 1 MiB
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, agent_id, name, version)
);

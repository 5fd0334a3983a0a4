-- Engram memory schema, version 3: prompt statistics without scanning a scope's whole history.

-- The in-context messages of a scope, read at every agent step.
CREATE INDEX messages_in_context ON messages (user_id, agent_id, id) WHERE in_context = 1;

-- Message counts per scope, kept by triggers in the writing transaction (messages are never deleted).
CREATE TABLE message_counts (
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    total      INTEGER NOT NULL,
    in_context INTEGER NOT NULL,
    PRIMARY KEY (user_id, agent_id)
) WITHOUT ROWID;

INSERT INTO message_counts (user_id, agent_id, total, in_context)
SELECT user_id, agent_id, count(*), sum(in_context) FROM messages GROUP BY user_id, agent_id;

CREATE TRIGGER message_counts_insert AFTER INSERT ON messages
BEGIN
    INSERT INTO message_counts (user_id, agent_id, total, in_context) VALUES (NEW.user_id, NEW.agent_id, 1, NEW.in_context)
    ON CONFLICT (user_id, agent_id) DO UPDATE SET total = total + 1, in_context = in_context + NEW.in_context;
END;

CREATE TRIGGER message_counts_context AFTER UPDATE OF in_context ON messages
WHEN OLD.in_context <> NEW.in_context
BEGIN
    UPDATE message_counts SET in_context = in_context + NEW.in_context - OLD.in_context
    WHERE user_id = NEW.user_id AND agent_id = NEW.agent_id;
END;

-- Engram memory schema on PostgreSQL, version 26: prompt statistics without scanning a scope's whole history (SQLite's
-- V3 message_counts). Every step read count(*), the in-context count and max(created_at) over all of an agent's
-- messages; now one row per scope, kept by triggers in the writing transaction (messages are never deleted). The row
-- also keeps the newest message's time, which SQLite reads with max(created_at) (no index covers it here).

CREATE TABLE message_counts (
    user_id    TEXT   NOT NULL,
    agent_id   TEXT   NOT NULL,
    total      BIGINT NOT NULL,
    in_context BIGINT NOT NULL,
    last_at    BIGINT NOT NULL,
    PRIMARY KEY (user_id, agent_id)
);

-- No message may be written between the count and the triggers (another process on the database, an older Engram
-- still running): writers wait until this migration commits.
LOCK TABLE messages IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO message_counts (user_id, agent_id, total, in_context, last_at)
SELECT user_id, agent_id, count(*), count(*) FILTER (WHERE in_context), max(created_at) FROM messages GROUP BY user_id, agent_id;

-- One upsert per INSERT statement (a step's results are one multi-row INSERT), not one per row. Two transactions
-- adding to one scope's row at once wait for each other on that row (ON CONFLICT DO UPDATE re-reads the committed
-- row), so the counts stay exact across processes.
CREATE FUNCTION message_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO message_counts AS c (user_id, agent_id, total, in_context, last_at)
    SELECT user_id, agent_id, count(*), count(*) FILTER (WHERE in_context), max(created_at) FROM added GROUP BY user_id, agent_id
    ON CONFLICT (user_id, agent_id) DO UPDATE SET total = c.total + excluded.total,
        in_context = c.in_context + excluded.in_context, last_at = greatest(c.last_at, excluded.last_at);
    RETURN NULL;
END
$$;

CREATE TRIGGER message_counts_insert AFTER INSERT ON messages REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION message_counts_insert();

-- As SQLite's: a message leaving (or entering) the context window moves the in-context count; one update per
-- statement (a compaction takes many messages out at once). Only in_context changes it.
CREATE FUNCTION message_counts_context() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts c SET in_context = c.in_context + d.delta
    FROM (SELECT n.user_id, n.agent_id, sum(n.in_context::int - o.in_context::int) AS delta
          FROM new_rows n JOIN old_rows o ON o.id = n.id GROUP BY n.user_id, n.agent_id) d
    WHERE c.user_id = d.user_id AND c.agent_id = d.agent_id AND d.delta <> 0;
    RETURN NULL;
END
$$;

CREATE TRIGGER message_counts_context AFTER UPDATE ON messages REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION message_counts_context();

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

-- As SQLite's: one row more per message inserted. A row-level trigger whose UPDATE finds the scope's row (an INSERT only
-- for a scope's first message) costs less than a statement-level one over a transition table or an upsert each time
-- (pgbench, one-row inserts: about a third of the added time). Two transactions adding to one scope's row at once
-- wait for each other on that row (the UPDATE, and ON CONFLICT DO UPDATE, re-read the committed row), so the counts
-- stay exact across processes.
CREATE FUNCTION message_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE message_counts SET total = total + 1, in_context = in_context + NEW.in_context::int,
        last_at = greatest(last_at, NEW.created_at)
    WHERE user_id = NEW.user_id AND agent_id = NEW.agent_id;
    IF NOT FOUND THEN
        INSERT INTO message_counts AS c (user_id, agent_id, total, in_context, last_at)
        VALUES (NEW.user_id, NEW.agent_id, 1, NEW.in_context::int, NEW.created_at)
        ON CONFLICT (user_id, agent_id) DO UPDATE SET total = c.total + 1, in_context = c.in_context + excluded.in_context,
            last_at = greatest(c.last_at, excluded.last_at);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER message_counts_insert AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION message_counts_insert();

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

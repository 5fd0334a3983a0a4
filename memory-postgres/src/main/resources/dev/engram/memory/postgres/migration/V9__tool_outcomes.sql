-- Engram memory schema on PostgreSQL, version 5: a tool message stores how its call ended and what it did, in
-- columns of its own (before, a failed call was known only by its content starting with "Error: ").

ALTER TABLE messages ADD COLUMN tool_status TEXT;
ALTER TABLE messages ADD COLUMN tool_effects TEXT;

-- Tool messages written before this version: their content was the only record of a failure, and a send_message
-- call without target_agent_id that succeeded was a message to the user.
UPDATE messages SET tool_status = CASE WHEN content LIKE 'Error: %' THEN 'error' ELSE 'ok' END, tool_effects = ''
WHERE role = 'TOOL';

UPDATE messages m SET tool_effects = 'message_to_user'
WHERE m.role = 'TOOL' AND m.tool_status = 'ok' AND EXISTS (
    SELECT 1 FROM messages a, jsonb_array_elements(a.tool_calls::jsonb) c
    WHERE a.user_id = m.user_id AND a.agent_id = m.agent_id AND a.role = 'ASSISTANT' AND a.tool_calls IS NOT NULL
      AND c->>'id' = m.tool_call_id AND c->>'name' = 'send_message'
      AND coalesce(c->>'arguments', '') !~ '"target_agent_id"\s*:\s*"[^"]');

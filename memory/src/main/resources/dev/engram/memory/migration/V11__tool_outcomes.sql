-- Engram memory schema, version 8: a tool message stores how its call ended and what it did, in columns of its own
-- (before, a failed call was known only by its content starting with "Error: ").

ALTER TABLE messages ADD COLUMN tool_status TEXT;
ALTER TABLE messages ADD COLUMN tool_effects TEXT;

-- Tool messages written before this version: their content was the only record of a failure, and a send_message
-- call without target_agent_id that succeeded was a message to the user.
UPDATE messages SET tool_status = CASE WHEN content LIKE 'Error: %' THEN 'error' ELSE 'ok' END, tool_effects = ''
WHERE role = 'TOOL';

UPDATE messages SET tool_effects = 'message_to_user'
WHERE role = 'TOOL' AND tool_status = 'ok' AND EXISTS (
    SELECT 1 FROM messages a, json_each(a.tool_calls) c
    WHERE a.user_id = messages.user_id AND a.agent_id = messages.agent_id AND a.role = 'ASSISTANT'
      AND a.tool_calls IS NOT NULL AND json_valid(a.tool_calls)
      AND json_extract(c.value, '$.id') = messages.tool_call_id
      AND json_extract(c.value, '$.name') = 'send_message'
      AND coalesce(CASE WHEN json_valid(json_extract(c.value, '$.arguments'))
                        THEN json_extract(json_extract(c.value, '$.arguments'), '$.target_agent_id') END, '') = '');

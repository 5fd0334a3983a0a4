-- Engram memory schema, version 19: an assistant message keeps the model's own reasoning behind it (a provider's
-- thinking, apart from the text beside its tool calls): its text, the provider's signature over it, and what the
-- provider gave only encrypted (a JSON array of strings). Messages written before have none.
ALTER TABLE messages ADD COLUMN reasoning TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN reasoning_signature TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN reasoning_redacted TEXT NOT NULL DEFAULT '[]';

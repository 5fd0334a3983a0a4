-- Engram memory schema, version 16: metadata on notes and archival entries (a JSON object, '{}' when none) and facts
-- over time: a superseded note or entry keeps its text and gets valid_to (when it stopped being true; NULL while it is
-- current; it became true at created_at), and the version that replaced it records the id it supersedes.

ALTER TABLE notes ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE notes ADD COLUMN valid_to INTEGER;
ALTER TABLE notes ADD COLUMN supersedes TEXT;
CREATE INDEX notes_supersedes ON notes (supersedes) WHERE supersedes IS NOT NULL;

ALTER TABLE archival ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
ALTER TABLE archival ADD COLUMN valid_to INTEGER;
ALTER TABLE archival ADD COLUMN supersedes TEXT;
CREATE INDEX archival_supersedes ON archival (supersedes) WHERE supersedes IS NOT NULL;

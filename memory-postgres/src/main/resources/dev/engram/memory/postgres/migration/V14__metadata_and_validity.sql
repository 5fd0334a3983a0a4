-- Metadata on notes and archival entries (a JSON object, '{}' when none) and facts over time: a superseded note or
-- entry keeps its text and gets valid_to (NULL while current; it became true at created_at), and the version that
-- replaced it records the id it supersedes.
ALTER TABLE notes ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}', ADD COLUMN valid_to BIGINT, ADD COLUMN supersedes TEXT;
CREATE INDEX notes_supersedes ON notes (supersedes) WHERE supersedes IS NOT NULL;
ALTER TABLE archival ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}', ADD COLUMN valid_to BIGINT, ADD COLUMN supersedes TEXT;
CREATE INDEX archival_supersedes ON archival (supersedes) WHERE supersedes IS NOT NULL;

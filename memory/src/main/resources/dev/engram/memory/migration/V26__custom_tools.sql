-- Engram memory schema, version 26: the tools each user wrote from source (Letta's custom tools).

CREATE TABLE custom_tools (
    id                        TEXT    NOT NULL PRIMARY KEY,  -- tool-<uuid>
    user_id                   TEXT    NOT NULL,
    name                      TEXT    NOT NULL,              -- the function's name
    description               TEXT    NOT NULL,
    source_type               TEXT    NOT NULL,              -- python or javascript
    source_code               TEXT    NOT NULL,
    json_schema               TEXT    NOT NULL,              -- JSON object: name, description, parameters
    args_json_schema          TEXT    NOT NULL,              -- JSON object, or empty when none was given
    tags                      TEXT    NOT NULL,              -- JSON array
    return_char_limit         INTEGER NOT NULL,
    pip_requirements          TEXT    NOT NULL,              -- JSON array, recorded and never installed
    npm_requirements          TEXT    NOT NULL,              -- JSON array, recorded and never installed
    default_requires_approval INTEGER NOT NULL,              -- 1: every call asks first
    metadata                  TEXT    NOT NULL,              -- JSON object
    created_at                INTEGER NOT NULL,
    updated_at                INTEGER NOT NULL,
    UNIQUE (user_id, name)
);

-- Engram memory schema, version 9: the model providers an operator registered, their credentials sealed by the server.

CREATE TABLE providers (
    id             TEXT    NOT NULL PRIMARY KEY,
    name           TEXT    NOT NULL UNIQUE,
    type           TEXT    NOT NULL,          -- Letta's provider_type: openai, anthropic, google_ai, ollama
    base_url       TEXT    NOT NULL,          -- empty for the provider's own endpoint
    sealed_api_key TEXT    NOT NULL,          -- AES-GCM, sealed by the server with the operator's key
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);

-- Engram memory schema, version 4: the store's identity, which search indexes record (a backup keeps it).

CREATE TABLE store_identity (
    id TEXT NOT NULL
);

INSERT INTO store_identity (id) VALUES (lower(hex(randomblob(16))));

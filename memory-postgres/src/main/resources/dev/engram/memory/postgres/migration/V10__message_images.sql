-- Engram memory schema on PostgreSQL, version 10: the images a user message carries, kept beside it (a text-only
-- message has no rows here). An image is its bytes and media type, or only its address.

CREATE TABLE message_images (
    message_id BIGINT  NOT NULL REFERENCES messages (id),
    position   INTEGER NOT NULL,  -- 0, 1, ... in the order the message carries them
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    media_type TEXT,              -- image/png, image/jpeg, image/gif or image/webp; NULL for an image by address
    data       BYTEA,             -- the encoded image; NULL for an image by address
    url        TEXT,              -- the address; NULL for an image given as bytes
    PRIMARY KEY (message_id, position)
);
CREATE INDEX message_images_scope ON message_images (user_id, agent_id, message_id);

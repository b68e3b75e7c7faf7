-- Responses of idempotent writes: a POST under /api/v1 sent with an
-- Idempotency-Key header keeps its successful answer here, written in the
-- same transaction as the write itself, so that a retry with the same key
-- gets that answer back instead of writing again. Keys belong to one user.
-- fingerprint is the SHA-256 of the request (method, path, query, body): the
-- same key with another request is refused. Rows older than 24 hours are
-- ignored, and deleted when the same user saves a new one.
CREATE TABLE idempotency_keys (
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    idempotency_key TEXT NOT NULL,
    fingerprint     BLOB NOT NULL,
    status          INTEGER NOT NULL,
    content_type    TEXT NOT NULL,
    body            BLOB NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, idempotency_key)
);
--bun:split
CREATE INDEX idempotency_keys_user_created ON idempotency_keys (user_id, created_at);

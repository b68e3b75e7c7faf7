-- The credentials generation: one counter that every change to what
-- authenticates a request moves on, in the same transaction as the change.
-- Each process caches verified credentials (credentialCache) and drops its
-- cache when the counter differs from the one it saw, so a key revoked, a
-- plan or password changed, or an OAuth grant revoked by any process (the
-- CLI while the server runs) is seen by the very next request. Triggers
-- rather than store code bump it, so no write path can forget to. Inserts do
-- not bump it: nothing caches the absence of a credential. Last-use times
-- do not either: they are written every minute and authenticate nothing.
CREATE TABLE credential_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
--bun:split
INSERT INTO credential_generation (id, n) VALUES (1, 0);
--bun:split
CREATE TRIGGER credentials_users_update AFTER UPDATE ON users
BEGIN
    UPDATE credential_generation SET n = n + 1 WHERE id = 1;
END;
--bun:split
CREATE TRIGGER credentials_users_delete AFTER DELETE ON users
BEGIN
    UPDATE credential_generation SET n = n + 1 WHERE id = 1;
END;
--bun:split
CREATE TRIGGER credentials_api_keys_update
AFTER UPDATE OF id, user_id, public_id, secret_hash, scopes, expires_at, revoked_at ON api_keys
BEGIN
    UPDATE credential_generation SET n = n + 1 WHERE id = 1;
END;
--bun:split
CREATE TRIGGER credentials_api_keys_delete AFTER DELETE ON api_keys
BEGIN
    UPDATE credential_generation SET n = n + 1 WHERE id = 1;
END;
--bun:split
CREATE TRIGGER credentials_oauth_grants_update
AFTER UPDATE OF id, user_id, client_id, scopes, resource, expires_at, revoked_at ON oauth_grants
BEGIN
    UPDATE credential_generation SET n = n + 1 WHERE id = 1;
END;
--bun:split
CREATE TRIGGER credentials_oauth_grants_delete AFTER DELETE ON oauth_grants
BEGIN
    UPDATE credential_generation SET n = n + 1 WHERE id = 1;
END;
--bun:split
CREATE TRIGGER credentials_oauth_tokens_update AFTER UPDATE ON oauth_tokens
BEGIN
    UPDATE credential_generation SET n = n + 1 WHERE id = 1;
END;
--bun:split
CREATE TRIGGER credentials_oauth_tokens_delete AFTER DELETE ON oauth_tokens
BEGIN
    UPDATE credential_generation SET n = n + 1 WHERE id = 1;
END;

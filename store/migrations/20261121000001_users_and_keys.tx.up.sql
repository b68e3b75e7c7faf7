-- Users: every record of the service belongs to exactly one of them.
-- Emails are stored lowercased, so UNIQUE is case-insensitive in effect.
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL,
    plan          TEXT NOT NULL CHECK (plan IN ('free', 'pro')),
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL
);
--bun:split
-- API keys: only the SHA-256 of the secret is stored; public_id finds the row.
-- scopes is a space-separated list ("all" alone for every scope).
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    public_id    TEXT NOT NULL UNIQUE,
    secret_hash  BLOB NOT NULL,
    scopes       TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    expires_at   TIMESTAMP,
    last_used_at TIMESTAMP,
    revoked_at   TIMESTAMP
);
--bun:split
CREATE INDEX api_keys_user_id ON api_keys (user_id, created_at);

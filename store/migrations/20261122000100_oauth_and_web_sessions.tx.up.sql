-- The OAuth 2.1 authorization server for MCP clients, and the browser
-- sessions of the web pages (login, consent, API keys, connected apps).
-- Every secret (authorization code, access and refresh token, session id)
-- is stored only as its SHA-256; the row is found by that hash.

-- Clients registered by dynamic client registration (RFC 7591). All are
-- public clients: there is no client secret. redirect_uris is a JSON array.
CREATE TABLE oauth_clients (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    grant_types   TEXT NOT NULL,
    scope         TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMP NOT NULL
);
--bun:split

-- A grant is one approval on the consent page, redeemed for tokens: one
-- token family. Revoking it (connected apps page, a replayed refresh token,
-- a reused code) stops all its tokens at once. expires_at moves forward with
-- each refresh (the refresh token's lifetime).
CREATE TABLE oauth_grants (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id    TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scopes       TEXT NOT NULL,
    resource     TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    expires_at   TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP,
    revoked_at   TIMESTAMP
);
--bun:split
CREATE INDEX oauth_grants_user ON oauth_grants (user_id, created_at);
--bun:split
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
--bun:split

-- Authorization codes: single use, 60 seconds. used_at is set by the first
-- redemption; reused_at by any later one, which also revokes grant_id.
CREATE TABLE oauth_codes (
    code_hash          BLOB PRIMARY KEY,
    client_id          TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    user_id            TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    redirect_uri       TEXT NOT NULL,
    redirect_uri_given BOOLEAN NOT NULL,
    code_challenge     TEXT NOT NULL,
    scopes             TEXT NOT NULL,
    resource           TEXT NOT NULL,
    created_at         TIMESTAMP NOT NULL,
    expires_at         TIMESTAMP NOT NULL,
    used_at            TIMESTAMP,
    reused_at          TIMESTAMP,
    grant_id           TEXT REFERENCES oauth_grants (id) ON DELETE SET NULL
);
--bun:split

-- Access tokens (1 hour) and refresh tokens (rotated on every use; used_at
-- marks a rotated one, kept until it expires so that a replay is recognised).
CREATE TABLE oauth_tokens (
    token_hash BLOB PRIMARY KEY,
    grant_id   TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    scopes     TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at    TIMESTAMP
);
--bun:split
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
--bun:split
CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);
--bun:split

-- Signed-in browsers of the web pages. Cookies never authenticate /api/v1 or /api/mcp.
CREATE TABLE web_sessions (
    id_hash    BLOB PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX web_sessions_user ON web_sessions (user_id);
--bun:split
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

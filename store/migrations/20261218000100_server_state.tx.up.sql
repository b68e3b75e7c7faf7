-- What replicas of the server must share lives in the database, so that
-- replicas need no shared data directory (docs/architecture.md "Postgres").
--
-- server_secrets: the server's own secrets, by name. The key that signs
-- first-party access tokens ('jwt_signing_key') is made by whichever process
-- starts first (INSERT ... ON CONFLICT DO NOTHING, then read back), or taken
-- from an earlier version's jwt.key. Never exported.
CREATE TABLE server_secrets (
    name       TEXT PRIMARY KEY,
    value      BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL
);
--bun:split
-- profile_pictures: the uploaded profile pictures, served publicly at
-- /media/profile-pictures/NAME (NAME is users.profile_picture_file: a UUIDv7
-- and the extension of its type). A user has at most one: a new upload, a
-- URL or a removal deletes the one before in the same transaction.
CREATE TABLE profile_pictures (
    name         TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    content_type TEXT NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
    content      BLOB NOT NULL,
    created_at   TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX profile_pictures_user ON profile_pictures (user_id);

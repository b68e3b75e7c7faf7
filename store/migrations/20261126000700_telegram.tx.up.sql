-- The Telegram bot (README "Telegram"): the updates Telegram delivered, the
-- one-time codes that link a chat to a user, the linked chats, and the
-- expense drafts waiting for their Confirm button.

-- Every update Telegram delivers, by its update_id, stored before the
-- webhook answers 200: a redelivery of a stored id is a no-op, so Telegram's
-- retries never act twice. payload holds the update until it is handled
-- (then it is cleared); an update still pending at a restart is handled
-- then. Handled rows are kept for a week, longer than Telegram retries.
CREATE TABLE telegram_updates (
    update_id   INTEGER PRIMARY KEY,
    payload     BLOB,
    received_at TIMESTAMP NOT NULL,
    done_at     TIMESTAMP
);
--bun:split
CREATE INDEX telegram_updates_pending ON telegram_updates (done_at, update_id);
--bun:split

-- Link codes: 8 characters shown once to a signed-in user, stored only as
-- their SHA-256, valid 10 minutes, deleted when used. A user has at most one.
CREATE TABLE telegram_link_codes (
    code_hash  BLOB PRIMARY KEY,
    user_id    TEXT NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
) WITHOUT ROWID;
--bun:split

-- A linked chat acts for exactly one user; a user may link several chats.
-- conversation_id is the assistant conversation the chat continues.
CREATE TABLE telegram_chats (
    chat_id         INTEGER PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label           TEXT NOT NULL,
    conversation_id TEXT,
    linked_at       TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX telegram_chats_user ON telegram_chats (user_id);
--bun:split

-- Expense drafts read from a photo (or, without the assistant, from text),
-- shown with Confirm and Cancel buttons. body is the POST /expenses request
-- the Confirm button sends, once (its Idempotency-Key is the draft's id).
CREATE TABLE telegram_drafts (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    chat_id    INTEGER NOT NULL,
    body       BLOB NOT NULL,
    summary    TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'cancelled')),
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
) WITHOUT ROWID;
--bun:split
CREATE INDEX telegram_drafts_user_created ON telegram_drafts (user_id, created_at);

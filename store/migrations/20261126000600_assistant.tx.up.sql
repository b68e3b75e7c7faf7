-- The AI assistant (POST /ai-assistant/chat and /confirm). A conversation
-- keeps its last 20 exchanges (a user message and the assistant's reply) and
-- is deleted 30 days after its last one. A proposal is a write the assistant
-- suggested and the user has not yet confirmed: the REST request that
-- performs it (method, path, body), what the user is shown (action,
-- summary, arguments), and, once decided, the route's answer. Confirming
-- runs the request and stores its answer in the same transaction, so a
-- proposal is executed at most once even across a crash, and a repeated
-- confirm returns the stored answer.
CREATE TABLE assistant_conversations (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX assistant_conversations_user_updated ON assistant_conversations (user_id, updated_at);
--bun:split
CREATE INDEX assistant_conversations_updated ON assistant_conversations (updated_at);
--bun:split
CREATE TABLE assistant_turns (
    conversation_id TEXT NOT NULL REFERENCES assistant_conversations (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    message         TEXT NOT NULL,
    reply           TEXT NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (conversation_id, seq)
) WITHOUT ROWID;
--bun:split
CREATE TABLE assistant_proposals (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL REFERENCES assistant_conversations (id) ON DELETE CASCADE,
    action          TEXT NOT NULL,
    summary         TEXT NOT NULL,
    arguments       TEXT NOT NULL,
    method          TEXT NOT NULL,
    path            TEXT NOT NULL,
    body            TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'rejected')),
    expires_at      TIMESTAMP NOT NULL,
    created_at      TIMESTAMP NOT NULL,
    decided_at      TIMESTAMP,
    result_status   INTEGER,
    result_data     TEXT
);
--bun:split
CREATE INDEX assistant_proposals_conversation ON assistant_proposals (conversation_id);

-- Who did what (docs/domain.md "Activity: who did what"): every write
-- appends an entry naming its actor, in its own transaction. The card log
-- becomes the entries of card records (those with a credit_card_id) in the
-- same table, and its earlier entries move there with the actor unknown.

-- One row per actor as a user's entries name it: its kind, id (ref, '' for
-- none), name at the time, and door. A renamed key is a new row, so older
-- entries keep the name they were written with.
CREATE TABLE activity_actors (
    id       INTEGER PRIMARY KEY,
    user_seq INTEGER NOT NULL REFERENCES users (seq) ON DELETE CASCADE,
    kind     TEXT NOT NULL CHECK (kind IN ('web', 'app', 'api_key', 'oauth_client', 'telegram', 'assistant', 'system', 'unknown')),
    ref      TEXT NOT NULL,
    name     TEXT NOT NULL,
    source   TEXT NOT NULL CHECK (source IN ('manual', 'agent'))
);
--bun:split
CREATE UNIQUE INDEX activity_actors_key ON activity_actors (user_seq, kind, ref, name, source);
--bun:split
-- The actorId filter (a key's or a connected app's last writes).
CREATE INDEX activity_actors_ref ON activity_actors (user_seq, ref);
--bun:split

-- The entries. id is the entry's UUIDv7; nothing looks an entry up by it,
-- so it has no index. at is created_at in Unix seconds; seq orders the
-- entries of one second (store/activity.go). user_seq stands for the user,
-- as in expenses, to keep the indexes small.
CREATE TABLE activity (
    seq            INTEGER PRIMARY KEY,
    id             TEXT NOT NULL,
    user_seq       INTEGER NOT NULL REFERENCES users (seq) ON DELETE CASCADE,
    at             INTEGER NOT NULL,
    actor          INTEGER NOT NULL REFERENCES activity_actors (id) ON DELETE CASCADE,
    kind           TEXT NOT NULL CHECK (kind IN ('expense', 'income', 'account', 'account_transaction', 'category',
                                                 'credit_card', 'card_transaction', 'soa', 'soa_payment', 'installment_plan',
                                                 'bill_template', 'bill', 'bill_payment', 'loan', 'loan_instance',
                                                 'loan_payment', 'app_settings', 'budget_thresholds')),
    record_id      TEXT NOT NULL,
    action         TEXT NOT NULL CHECK (action IN ('created', 'updated', 'split', 'voided', 'deleted', 'archived',
                                                   'unarchived', 'paid', 'generated', 'linked', 'unlinked', 'converted',
                                                   'cancelled', 'completed')),
    summary        TEXT NOT NULL,
    amount         INTEGER,
    credit_card_id TEXT REFERENCES credit_cards (id)
);
--bun:split
-- GET /activity: the user's entries newest first, in a date range.
CREATE INDEX activity_user ON activity (user_seq, at);
--bun:split
-- The kind filter.
CREATE INDEX activity_kind ON activity (user_seq, kind, at);
--bun:split
-- The actor filters: the entries of each of the filter's actors.
CREATE INDEX activity_actor ON activity (actor, at);
--bun:split
-- GET /credit-cards/logs: the card records' entries, and those of one card.
CREATE INDEX activity_cards ON activity (user_seq, at) WHERE credit_card_id IS NOT NULL;
--bun:split
CREATE INDEX activity_card ON activity (credit_card_id, at) WHERE credit_card_id IS NOT NULL;
--bun:split

INSERT INTO activity_actors (user_seq, kind, ref, name, source)
SELECT DISTINCT u.seq, 'unknown', '', 'Not recorded', 'manual' FROM card_logs AS g JOIN users AS u ON u.id = g.user_id;
--bun:split
INSERT INTO activity (id, user_seq, at, actor, kind, record_id, action, summary, amount, credit_card_id)
SELECT g.id, u.seq, CAST(strftime('%s', g.created_at) AS INTEGER), a.id, g.entity_type, g.entity_id, g.action, g.message,
       g.amount, g.credit_card_id
FROM card_logs AS g
JOIN users AS u ON u.id = g.user_id
JOIN activity_actors AS a ON a.user_seq = u.seq AND a.kind = 'unknown'
ORDER BY g.created_at, g.id;
--bun:split
DROP TABLE card_logs;

-- Category rules (docs/domain.md "Category rules"): the person's standing
-- choices of a category for imported rows, in order, the first match wins.
-- Positions run 1, 2, 3… per user; a move renumbers in one transaction.
-- The category is kept by id, so a renamed category keeps its rules and an
-- archived one keeps them listed (and skipped).
CREATE TABLE category_rules (
    id                   TEXT PRIMARY KEY,
    user_id              TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    position             INTEGER NOT NULL CHECK (position > 0),
    description_contains TEXT,
    payee_equals         TEXT,
    amount_min           INTEGER CHECK (amount_min > 0),
    amount_max           INTEGER CHECK (amount_max > 0),
    category_id          TEXT NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    created_at           TIMESTAMP NOT NULL,
    updated_at           TIMESTAMP NOT NULL,
    CHECK (description_contains IS NOT NULL OR payee_equals IS NOT NULL OR amount_min IS NOT NULL OR amount_max IS NOT NULL),
    CHECK (amount_min IS NULL OR amount_max IS NULL OR amount_min <= amount_max)
);
--bun:split
CREATE UNIQUE INDEX category_rules_position ON category_rules (user_id, position);
--bun:split
CREATE INDEX category_rules_category ON category_rules (category_id);
--bun:split

-- An import row's category may come from a rule: the reason gains 'rule',
-- and the row keeps the rule's id and its position when the preview was
-- made (no foreign key: a rule deleted later is still named by its id).
-- SQLite cannot change a CHECK, so the table is copied.
CREATE TABLE import_rows_new (
    batch_id               TEXT NOT NULL REFERENCES import_batches (id) ON DELETE CASCADE,
    line                   INTEGER NOT NULL,
    date                   TEXT,
    amount                 INTEGER CHECK (amount > 0),
    direction              TEXT NOT NULL CHECK (direction IN ('debit', 'credit', '')),
    description            TEXT NOT NULL,
    payee                  TEXT,
    bank_id                TEXT,
    category               TEXT,
    category_reason        TEXT CHECK (category_reason IN ('set', 'rule', 'file', 'history', 'default')),
    category_uses          INTEGER NOT NULL,
    category_rule_id       TEXT,
    category_rule_position INTEGER,
    match_kind             TEXT CHECK (match_kind IN ('exact', 'probable')),
    match_record_id        TEXT,
    action                 TEXT NOT NULL CHECK (action IN ('create', 'skip')),
    record                 TEXT NOT NULL CHECK (record IN ('expense', 'income', 'account_line', 'card_refund', 'card_fee', '')),
    note                   TEXT,
    error                  TEXT,
    record_id              TEXT,
    row_id                 TEXT,
    PRIMARY KEY (batch_id, line)
) WITHOUT ROWID;
--bun:split
INSERT INTO import_rows_new (batch_id, line, date, amount, direction, description, payee, bank_id, category,
    category_reason, category_uses, match_kind, match_record_id, action, record, note, error, record_id, row_id)
SELECT batch_id, line, date, amount, direction, description, payee, bank_id, category,
    category_reason, category_uses, match_kind, match_record_id, action, record, note, error, record_id, row_id
FROM import_rows;
--bun:split
DROP TABLE import_rows;
--bun:split
ALTER TABLE import_rows_new RENAME TO import_rows;
--bun:split
CREATE INDEX import_rows_bank ON import_rows (batch_id, bank_id) WHERE bank_id IS NOT NULL;

-- Import batches (docs/domain.md "Importing a file"): a file's rows, staged
-- in preview until committed, and the records each committed row created,
-- so that a batch can be reverted and later imports match its bank ids.
CREATE TABLE import_batches (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status          TEXT NOT NULL CHECK (status IN ('preview', 'committed', 'reverted')),
    file_name       TEXT NOT NULL,
    format          TEXT NOT NULL,
    encoding        TEXT NOT NULL,
    currency        TEXT NOT NULL,
    target_kind     TEXT NOT NULL CHECK (target_kind IN ('account', 'credit_card')),
    target_id       TEXT NOT NULL,
    actor_kind      TEXT NOT NULL,
    actor_id        TEXT NOT NULL,
    actor_name      TEXT NOT NULL,
    row_count       INTEGER NOT NULL,
    new_count       INTEGER NOT NULL,
    duplicate_count INTEGER NOT NULL,
    error_count     INTEGER NOT NULL,
    created_count   INTEGER NOT NULL,
    debit_total     INTEGER NOT NULL,
    credit_total    INTEGER NOT NULL,
    date_from       TEXT,
    date_to         TEXT,
    created_at      TIMESTAMP NOT NULL,
    committed_at    TIMESTAMP,
    reverted_at     TIMESTAMP
);
--bun:split
-- GET /imports: the user's batches, newest first; the removal of old previews.
CREATE INDEX import_batches_user ON import_batches (user_id, created_at);
--bun:split
-- Matching by bank id: the committed batches of a target.
CREATE INDEX import_batches_target ON import_batches (target_id, status);
--bun:split

-- A batch's rows by line. A line the reader could not read has only its
-- error. record_id is what the commit created (an expense, income, account
-- line or card row) and row_id the account line or card row it wrote.
CREATE TABLE import_rows (
    batch_id        TEXT NOT NULL REFERENCES import_batches (id) ON DELETE CASCADE,
    line            INTEGER NOT NULL,
    date            TEXT,
    amount          INTEGER CHECK (amount > 0),
    direction       TEXT NOT NULL CHECK (direction IN ('debit', 'credit', '')),
    description     TEXT NOT NULL,
    payee           TEXT,
    bank_id         TEXT,
    category        TEXT,
    category_reason TEXT CHECK (category_reason IN ('set', 'file', 'history', 'default')),
    category_uses   INTEGER NOT NULL,
    match_kind      TEXT CHECK (match_kind IN ('exact', 'probable')),
    match_record_id TEXT,
    action          TEXT NOT NULL CHECK (action IN ('create', 'skip')),
    record          TEXT NOT NULL CHECK (record IN ('expense', 'income', 'account_line', 'card_refund', 'card_fee', '')),
    note            TEXT,
    error           TEXT,
    record_id       TEXT,
    row_id          TEXT,
    PRIMARY KEY (batch_id, line)
) WITHOUT ROWID;
--bun:split
-- Matching by bank id: a committed batch's rows that carry one.
CREATE INDEX import_rows_bank ON import_rows (batch_id, bank_id) WHERE bank_id IS NOT NULL;

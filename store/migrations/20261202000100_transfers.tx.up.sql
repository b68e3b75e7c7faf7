-- Transfers between a user's own accounts (docs/domain.md "Transfers"): one
-- row per transfer, owning a debit line on the from-account and a credit line
-- on the to-account (both source transfer, source_id the transfer's id), and,
-- with a fee, an Account Debit expense from the from-account. Neither line
-- is income or spending; the fee expense is spending like any other.
CREATE TABLE transfers (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    from_account_id TEXT NOT NULL REFERENCES accounts (id),
    to_account_id   TEXT NOT NULL REFERENCES accounts (id),
    amount          INTEGER NOT NULL CHECK (amount > 0),
    fee             INTEGER NOT NULL DEFAULT 0 CHECK (fee >= 0),
    fee_expense_id  TEXT REFERENCES expenses (id),
    from_line_id    TEXT NOT NULL REFERENCES account_transactions (id),
    to_line_id      TEXT NOT NULL REFERENCES account_transactions (id),
    date            TEXT NOT NULL,
    description     TEXT,
    status          TEXT NOT NULL CHECK (status IN ('posted', 'voided')),
    voided_at       TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    CHECK (from_account_id <> to_account_id)
);
--bun:split
-- GET /transfers: the user's transfers of one status by date.
CREATE INDEX transfers_user ON transfers (user_id, status, date, id);
--bun:split
-- The accountId filter: the transfers out of and into an account.
CREATE INDEX transfers_from ON transfers (from_account_id, status, date);
--bun:split
CREATE INDEX transfers_to ON transfers (to_account_id, status, date);

-- The core ledger: categories, accounts and their lines, credit cards and
-- their transactions, expenses (with split parts) and income.
-- Money is INTEGER centavos; dates are TEXT YYYY-MM-DD; instants are TIMESTAMP (UTC).
-- Every table carries user_id: every query is scoped to one owner.
-- name_key is the trimmed, lowercased name, so uniqueness is case-insensitive
-- (SQLite's lower() only folds ASCII; the key is computed in Go with Unicode rules).

CREATE TABLE categories (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    name_key    TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('expense', 'income')),
    color       TEXT,
    icon        TEXT,
    is_system   BOOLEAN NOT NULL DEFAULT 0,
    status      TEXT NOT NULL CHECK (status IN ('active', 'archived')),
    archived_at TIMESTAMP,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX categories_active_name ON categories (user_id, kind, name_key) WHERE status = 'active';
--bun:split
CREATE INDEX categories_user ON categories (user_id, status, name_key);
--bun:split

CREATE TABLE accounts (
    id                   TEXT PRIMARY KEY,
    user_id              TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name                 TEXT NOT NULL,
    name_key             TEXT NOT NULL,
    type                 TEXT NOT NULL CHECK (type IN ('savings', 'checking', 'e_wallet', 'cash', 'other')),
    institution          TEXT,
    account_number_last4 TEXT,
    opening_balance      INTEGER NOT NULL DEFAULT 0,
    notes                TEXT,
    status               TEXT NOT NULL CHECK (status IN ('active', 'archived')),
    archived_at          TIMESTAMP,
    created_at           TIMESTAMP NOT NULL,
    updated_at           TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX accounts_active_name ON accounts (user_id, name_key) WHERE status = 'active';
--bun:split

-- Account lines. source says which record owns a line; only manual and
-- adjustment lines are edited directly.
CREATE TABLE account_transactions (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    type        TEXT NOT NULL CHECK (type IN ('debit', 'credit')),
    amount      INTEGER NOT NULL CHECK (amount > 0),
    date        TEXT NOT NULL,
    description TEXT,
    source      TEXT NOT NULL CHECK (source IN ('manual', 'adjustment', 'expense', 'income', 'soa_payment', 'loan_payment')),
    source_id   TEXT,
    status      TEXT NOT NULL CHECK (status IN ('posted', 'voided')),
    voided_at   TIMESTAMP,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX account_transactions_account ON account_transactions (account_id, status, date, id);
--bun:split
CREATE INDEX account_transactions_user ON account_transactions (user_id, status, date, id);
--bun:split
-- Covers the balance sum: an index-only scan of one account's posted lines.
CREATE INDEX account_transactions_balance ON account_transactions (account_id, status, type, amount);
--bun:split

CREATE TABLE credit_cards (
    id                  TEXT PRIMARY KEY,
    user_id             TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name                TEXT NOT NULL,
    name_key            TEXT NOT NULL,
    bank                TEXT,
    last_four           TEXT,
    credit_limit        INTEGER NOT NULL CHECK (credit_limit > 0),
    statement_day       INTEGER NOT NULL CHECK (statement_day BETWEEN 1 AND 31),
    due_day             INTEGER NOT NULL CHECK (due_day BETWEEN 1 AND 31),
    cycle_start_date    TEXT NOT NULL,
    minimum_due_percent TEXT NOT NULL,   -- an exact decimal percent, e.g. '3' or '3.5'
    minimum_due_floor   INTEGER NOT NULL CHECK (minimum_due_floor >= 0),
    notes               TEXT,
    status              TEXT NOT NULL CHECK (status IN ('active', 'archived')),
    archived_at         TIMESTAMP,
    created_at          TIMESTAMP NOT NULL,
    updated_at          TIMESTAMP NOT NULL
);
--bun:split
CREATE UNIQUE INDEX credit_cards_active_name ON credit_cards (user_id, name_key) WHERE status = 'active';
--bun:split

-- Card transactions. A purchase's category lives on its expense; a refund
-- keeps its own. soa_id, installment_* columns are filled by statements and
-- installment plans.
CREATE TABLE card_transactions (
    id                  TEXT PRIMARY KEY,
    user_id             TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credit_card_id      TEXT NOT NULL REFERENCES credit_cards (id),
    type                TEXT NOT NULL CHECK (type IN ('purchase', 'fee', 'interest', 'refund', 'installment')),
    amount              INTEGER NOT NULL CHECK (amount > 0),
    date                TEXT NOT NULL,
    description         TEXT NOT NULL,
    category_id         TEXT REFERENCES categories (id),
    status              TEXT NOT NULL CHECK (status IN ('unbilled', 'billed', 'converted', 'voided')),
    soa_id              TEXT,
    is_soa_line         BOOLEAN NOT NULL DEFAULT 0,
    expense_id          TEXT,
    installment_plan_id TEXT,
    installment_number  INTEGER,
    principal_portion   INTEGER,
    interest_portion    INTEGER,
    voided_at           TIMESTAMP,
    created_at          TIMESTAMP NOT NULL,
    updated_at          TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX card_transactions_card ON card_transactions (credit_card_id, status, date, id);
--bun:split
CREATE INDEX card_transactions_user ON card_transactions (user_id, status, date, id);
--bun:split

CREATE TABLE expenses (
    id                     TEXT PRIMARY KEY,
    user_id                TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    date                   TEXT NOT NULL,
    description            TEXT NOT NULL,
    category_id            TEXT REFERENCES categories (id),    -- NULL while split
    payment_method         TEXT NOT NULL CHECK (payment_method IN ('Cash', 'Account Debit', 'Credit Card')),
    account_id             TEXT REFERENCES accounts (id),
    credit_card_id         TEXT REFERENCES credit_cards (id),
    notes                  TEXT,
    status                 TEXT NOT NULL CHECK (status IN ('active', 'voided')),
    source                 TEXT NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'bill_payment')),
    bill_payment_id        TEXT,
    account_transaction_id TEXT,
    card_transaction_id    TEXT,
    voided_at              TIMESTAMP,
    created_at             TIMESTAMP NOT NULL,
    updated_at             TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX expenses_user_date ON expenses (user_id, status, date, id);
--bun:split
CREATE INDEX expenses_user_amount ON expenses (user_id, status, amount, id);
--bun:split
CREATE INDEX expenses_user_category_date ON expenses (user_id, status, category_id, date);
--bun:split

-- The parts of a split expense, in the order given.
CREATE TABLE expense_splits (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expense_id  TEXT NOT NULL REFERENCES expenses (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    amount      INTEGER NOT NULL CHECK (amount > 0),
    category_id TEXT NOT NULL REFERENCES categories (id),
    description TEXT
);
--bun:split
CREATE INDEX expense_splits_expense ON expense_splits (expense_id, position);
--bun:split
CREATE INDEX expense_splits_category ON expense_splits (user_id, category_id);
--bun:split

CREATE TABLE income (
    id                     TEXT PRIMARY KEY,
    user_id                TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    date                   TEXT NOT NULL,
    description            TEXT,
    category_id            TEXT NOT NULL REFERENCES categories (id),
    notes                  TEXT,
    account_id             TEXT REFERENCES accounts (id),
    account_transaction_id TEXT,
    status                 TEXT NOT NULL CHECK (status IN ('active', 'voided')),
    voided_at              TIMESTAMP,
    created_at             TIMESTAMP NOT NULL,
    updated_at             TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX income_user_date ON income (user_id, status, date, id);

-- Bills: recurring templates, the instances materialized from them, and the
-- payments against instances (domain.md §2.10, §3.4).
-- Money is INTEGER centavos; dates are TEXT YYYY-MM-DD; instants are TIMESTAMP (UTC).

-- A template is never erased: DELETE marks it removed (the API answers 404
-- for it afterwards), so the instances that outlive it keep their template_id.
-- generated_through is the last date through which its occurrences have been
-- materialized (NULL: none yet); generation picks up after it.
CREATE TABLE bill_templates (
    id                     TEXT PRIMARY KEY,
    user_id                TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name                   TEXT NOT NULL,
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    category_id            TEXT NOT NULL REFERENCES categories (id),
    frequency              TEXT NOT NULL CHECK (frequency IN ('weekly', 'biweekly', 'monthly', 'quarterly', 'semiannual', 'yearly')),
    start_date             TEXT NOT NULL,
    due_day                INTEGER CHECK (due_day BETWEEN 1 AND 31),
    end_date               TEXT,
    default_payment_method TEXT CHECK (default_payment_method IN ('Cash', 'Account Debit', 'Credit Card')),
    default_account_id     TEXT REFERENCES accounts (id),
    default_credit_card_id TEXT REFERENCES credit_cards (id),
    notes                  TEXT,
    status                 TEXT NOT NULL CHECK (status IN ('active', 'paused', 'removed')),
    generated_through      TEXT,
    removed_at             TIMESTAMP,
    created_at             TIMESTAMP NOT NULL,
    updated_at             TIMESTAMP NOT NULL
);
--bun:split
-- The per-request check "is any active template behind the horizon" is one
-- seek on (user_id, status) and a range on generated_through.
CREATE INDEX bill_templates_user ON bill_templates (user_id, status, generated_through);
--bun:split

-- An instance copies the template's name, category and amount when it is
-- materialized, so it outlives changes to the template. paid_total is the sum
-- of its posted payments, kept in step by the transaction that changes one.
-- edited marks an instance changed by PUT /bills/{id}: template changes leave
-- it alone.
CREATE TABLE bill_instances (
    id                   TEXT PRIMARY KEY,
    user_id              TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    template_id          TEXT NOT NULL REFERENCES bill_templates (id),
    name                 TEXT NOT NULL,
    category_id          TEXT NOT NULL REFERENCES categories (id),
    amount               INTEGER NOT NULL CHECK (amount > 0),
    scheduled_date       TEXT NOT NULL,
    due_date             TEXT NOT NULL,
    notes                TEXT,
    status               TEXT NOT NULL CHECK (status IN ('unpaid', 'partially_paid', 'paid', 'skipped')),
    paid_total           INTEGER NOT NULL CHECK (paid_total >= 0),
    marked_paid_manually BOOLEAN NOT NULL,
    edited               BOOLEAN NOT NULL,
    created_at           TIMESTAMP NOT NULL,
    updated_at           TIMESTAMP NOT NULL
);
--bun:split
-- One instance per occurrence: two requests materializing at once cannot both
-- create it, and generation inserts with OR IGNORE.
CREATE UNIQUE INDEX bill_instances_occurrence ON bill_instances (template_id, scheduled_date);
--bun:split
-- Lists and the month summary read a user's instances by due date; the
-- overdue and open filters add status.
CREATE INDEX bill_instances_user_due ON bill_instances (user_id, due_date, id);
--bun:split
CREATE INDEX bill_instances_user_status ON bill_instances (user_id, status, due_date, id);
--bun:split

CREATE TABLE bill_payments (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    bill_id        TEXT NOT NULL REFERENCES bill_instances (id),
    amount         INTEGER NOT NULL CHECK (amount > 0),
    date           TEXT NOT NULL,
    payment_method TEXT NOT NULL CHECK (payment_method IN ('Cash', 'Account Debit', 'Credit Card')),
    account_id     TEXT REFERENCES accounts (id),
    credit_card_id TEXT REFERENCES credit_cards (id),
    expense_id     TEXT NOT NULL REFERENCES expenses (id),
    notes          TEXT,
    status         TEXT NOT NULL CHECK (status IN ('posted', 'voided')),
    voided_at      TIMESTAMP,
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX bill_payments_bill ON bill_payments (bill_id, status, date, id);
-- expenses.bill_payment_id gets no foreign key: SQLite adds one only by
-- rebuilding the table. The payment's expense_id above is the enforced link.

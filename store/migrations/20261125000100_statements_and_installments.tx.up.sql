-- Statements of account (SOA) and their payments, installment plans, and the
-- card activity log (domain.md §2.8, §2.9, §2.12).
-- Money is INTEGER centavos; dates are TEXT YYYY-MM-DD; instants are TIMESTAMP (UTC).

-- A statement's totals are stored and recomputed in the transaction that
-- changes one of its lines or payments, so lists, counts and card figures
-- read them without summing lines. remaining = max(0, statement_balance -
-- paid_total) is computed on read.
CREATE TABLE soas (
    id                 TEXT PRIMARY KEY,
    user_id            TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credit_card_id     TEXT NOT NULL REFERENCES credit_cards (id),
    statement_date     TEXT NOT NULL,
    period_start       TEXT NOT NULL,
    period_end         TEXT NOT NULL,
    due_date           TEXT NOT NULL,
    minimum_due        INTEGER NOT NULL CHECK (minimum_due >= 0),
    minimum_due_source TEXT NOT NULL CHECK (minimum_due_source IN ('computed', 'user')),
    notes              TEXT,
    charges_total      INTEGER NOT NULL,
    credits_total      INTEGER NOT NULL,
    statement_balance  INTEGER NOT NULL,
    paid_total         INTEGER NOT NULL,
    transaction_count  INTEGER NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('unpaid', 'partially_paid', 'paid', 'voided')),
    replaced_by_id     TEXT,
    voided_at          TIMESTAMP,
    created_at         TIMESTAMP NOT NULL,
    updated_at         TIMESTAMP NOT NULL
);
--bun:split
-- One live statement per card and statement date: two requests generating at
-- once cannot both create it. A voided statement no longer holds its period.
CREATE UNIQUE INDEX soas_card_period ON soas (credit_card_id, statement_date) WHERE status <> 'voided';
--bun:split
-- Generation reads a card's live periods; figures read its open statements.
CREATE INDEX soas_card ON soas (credit_card_id, status, period_end);
--bun:split
CREATE INDEX soas_user ON soas (user_id, status, statement_date, id);
--bun:split
CREATE INDEX soas_user_due ON soas (user_id, status, due_date, id);
--bun:split

-- A statement's lines and linked transactions, oldest first.
CREATE INDEX card_transactions_soa ON card_transactions (soa_id, date, id) WHERE soa_id IS NOT NULL;
--bun:split
-- The rows of an installment plan, by number.
CREATE INDEX card_transactions_plan ON card_transactions (installment_plan_id, installment_number) WHERE installment_plan_id IS NOT NULL;
--bun:split

CREATE TABLE soa_payments (
    id                     TEXT PRIMARY KEY,
    user_id                TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    soa_id                 TEXT NOT NULL REFERENCES soas (id),
    credit_card_id         TEXT NOT NULL REFERENCES credit_cards (id),
    account_id             TEXT NOT NULL REFERENCES accounts (id),
    account_transaction_id TEXT NOT NULL,
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    date                   TEXT NOT NULL,
    notes                  TEXT,
    status                 TEXT NOT NULL CHECK (status IN ('posted', 'voided')),
    voided_at              TIMESTAMP,
    created_at             TIMESTAMP NOT NULL,
    updated_at             TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX soa_payments_soa ON soa_payments (soa_id, status, date, id);
--bun:split
-- Card figures sum a card's posted payments: an index-only scan.
CREATE INDEX soa_payments_card ON soa_payments (credit_card_id, status, amount);
--bun:split

CREATE TABLE installment_plans (
    id                     TEXT PRIMARY KEY,
    user_id                TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credit_card_id         TEXT NOT NULL REFERENCES credit_cards (id),
    source_transaction_id  TEXT NOT NULL REFERENCES card_transactions (id),
    expense_id             TEXT,
    description            TEXT NOT NULL,
    principal              INTEGER NOT NULL CHECK (principal > 0),
    months                 INTEGER NOT NULL CHECK (months BETWEEN 2 AND 60),
    interest_type          TEXT NOT NULL CHECK (interest_type IN ('none', 'add_on')),
    interest_rate          TEXT,             -- an exact decimal percent per month
    monthly_amount         INTEGER,
    first_installment_date TEXT NOT NULL,
    total_interest         INTEGER NOT NULL CHECK (total_interest >= 0),
    status                 TEXT NOT NULL CHECK (status IN ('active', 'completed', 'cancelled')),
    cancelled_at           TIMESTAMP,
    created_at             TIMESTAMP NOT NULL,
    updated_at             TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX installment_plans_user ON installment_plans (user_id, status, created_at, id);
--bun:split
CREATE INDEX installment_plans_card ON installment_plans (credit_card_id, status);
--bun:split

-- The card activity log: appended in the transaction of each change, never
-- updated or deleted.
CREATE TABLE card_logs (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credit_card_id TEXT REFERENCES credit_cards (id),
    entity_type    TEXT NOT NULL CHECK (entity_type IN ('credit_card', 'card_transaction', 'soa', 'soa_payment', 'installment_plan')),
    entity_id      TEXT NOT NULL,
    action         TEXT NOT NULL CHECK (action IN ('created', 'updated', 'archived', 'unarchived', 'voided', 'generated',
                                                   'linked', 'unlinked', 'paid', 'converted', 'cancelled', 'completed')),
    message        TEXT NOT NULL,
    amount         INTEGER,
    created_at     TIMESTAMP NOT NULL
);
--bun:split
CREATE INDEX card_logs_user ON card_logs (user_id, created_at, id);
--bun:split
CREATE INDEX card_logs_card ON card_logs (credit_card_id, created_at, id);
--bun:split

-- Billing a statement changes the status of every row it takes. The user-wide
-- index leaves status out, so billing does not move its entries: lists still
-- read it in date order and skip the few rows of another status.
DROP INDEX card_transactions_user;
--bun:split
CREATE INDEX card_transactions_user ON card_transactions (user_id, date, id);

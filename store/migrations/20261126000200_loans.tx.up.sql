-- Loans, their monthly instances and the payments on them (domain.md §2.11,
-- §3.5, §3.6, §4.5). Money is INTEGER centavos; dates are TEXT YYYY-MM-DD;
-- instants are TIMESTAMP (UTC).

-- A loan's terms are fixed at creation, and so is total_interest (the sum of
-- its instances' interest). Its other figures are computed from the
-- instances on read, with one aggregate over loan_instances_loan.
CREATE TABLE loans (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    name_key       TEXT NOT NULL,    -- lower(trim(name)): the name sort ignores case
    lender         TEXT,
    principal      INTEGER NOT NULL CHECK (principal > 0),
    interest_type  TEXT NOT NULL CHECK (interest_type IN ('none', 'add_on', 'diminishing')),
    interest_rate  TEXT,             -- an exact decimal percent, per rate_period
    rate_period    TEXT CHECK (rate_period IN ('monthly', 'annual')),
    term_months    INTEGER NOT NULL CHECK (term_months BETWEEN 1 AND 360),
    start_date     TEXT NOT NULL,
    first_due_date TEXT NOT NULL,
    monthly_amount INTEGER CHECK (monthly_amount > 0),
    notes          TEXT,
    status         TEXT NOT NULL CHECK (status IN ('active', 'completed', 'cancelled')),
    total_interest INTEGER NOT NULL CHECK (total_interest >= 0),
    created_at     TIMESTAMP NOT NULL,
    updated_at     TIMESTAMP NOT NULL
);
--bun:split
-- GET /loans reads a user's loans by start_date (the default sort).
CREATE INDEX loans_user ON loans (user_id, start_date, id);
--bun:split

-- An instance keeps what its payments paid (paid_total = paid_principal +
-- paid_interest), updated in the transaction that writes each payment, so
-- lists, dues and loan figures read sums without visiting payments.
CREATE TABLE loan_instances (
    id                   TEXT PRIMARY KEY,
    user_id              TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    loan_id              TEXT NOT NULL REFERENCES loans (id) ON DELETE CASCADE,
    installment_number   INTEGER NOT NULL CHECK (installment_number >= 1),
    due_date             TEXT NOT NULL,
    amount_due           INTEGER NOT NULL CHECK (amount_due > 0),
    principal_due        INTEGER NOT NULL CHECK (principal_due > 0),
    interest_due         INTEGER NOT NULL CHECK (interest_due >= 0),
    paid_total           INTEGER NOT NULL CHECK (paid_total >= 0 AND paid_total <= amount_due),
    paid_principal       INTEGER NOT NULL CHECK (paid_principal >= 0 AND paid_principal <= principal_due),
    paid_interest        INTEGER NOT NULL CHECK (paid_interest >= 0 AND paid_interest <= interest_due),
    status               TEXT NOT NULL CHECK (status IN ('unpaid', 'partially_paid', 'paid', 'waived', 'cancelled')),
    marked_paid_manually BOOLEAN NOT NULL DEFAULT 0,
    created_at           TIMESTAMP NOT NULL,
    updated_at           TIMESTAMP NOT NULL,
    CHECK (amount_due = principal_due + interest_due),
    CHECK (paid_total = paid_principal + paid_interest)
);
--bun:split
-- A loan's instances by number: GET /loans/{id}, its instance list and the loan figures.
CREATE UNIQUE INDEX loan_instances_loan ON loan_instances (loan_id, installment_number);
--bun:split
-- GET /loans/current-month-dues: the open instances due up to the month's
-- end, and the paid ones due in the month, are two range seeks.
CREATE INDEX loan_instances_user_due ON loan_instances (user_id, status, due_date);
--bun:split

-- Payments are permanent: there is no delete or void, and a loan with one
-- cannot be erased (no cascade from loans).
CREATE TABLE loan_payments (
    id                     TEXT PRIMARY KEY,
    user_id                TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    loan_id                TEXT NOT NULL REFERENCES loans (id),
    instance_id            TEXT NOT NULL REFERENCES loan_instances (id),
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    interest_part          INTEGER NOT NULL CHECK (interest_part >= 0),
    principal_part         INTEGER NOT NULL CHECK (principal_part >= 0),
    date                   TEXT NOT NULL,
    account_id             TEXT REFERENCES accounts (id),
    account_transaction_id TEXT,
    notes                  TEXT,
    created_at             TIMESTAMP NOT NULL,
    updated_at             TIMESTAMP NOT NULL,
    CHECK (amount = interest_part + principal_part)
);
--bun:split
CREATE INDEX loan_payments_instance ON loan_payments (instance_id, date, id);
--bun:split
CREATE INDEX loan_payments_loan ON loan_payments (loan_id);
--bun:split
-- Spending sums the interest parts of the payments dated in a range: an index-only scan.
CREATE INDEX loan_payments_user_date ON loan_payments (user_id, date, interest_part);

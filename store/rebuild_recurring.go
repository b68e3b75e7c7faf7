package store

// recurringRebuilds let a bill template fall due twice a month (docs/domain.md
// "Frequencies and the semi-monthly rule"): its frequency gains semimonthly
// and it gains second_due_day. SQLite cannot change a CHECK in place; the
// table's index is as before.
var recurringRebuilds = []rebuild{{
	name: "20261205000110", comment: "bill_templates_semimonthly", table: "bill_templates",
	create: `CREATE TABLE bill_templates_new (
    id                     TEXT PRIMARY KEY,
    user_id                TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name                   TEXT NOT NULL,
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    category_id            TEXT NOT NULL REFERENCES categories (id),
    frequency              TEXT NOT NULL CHECK (frequency IN ('weekly', 'biweekly', 'semimonthly', 'monthly', 'quarterly', 'semiannual', 'yearly')),
    start_date             TEXT NOT NULL,
    due_day                INTEGER CHECK (due_day BETWEEN 1 AND 31),
    second_due_day         INTEGER CHECK (second_due_day BETWEEN 1 AND 31),
    end_date               TEXT,
    default_payment_method TEXT CHECK (default_payment_method IN ('Cash', 'Account Debit', 'Credit Card')),
    default_account_id     TEXT REFERENCES accounts (id),
    default_credit_card_id TEXT REFERENCES credit_cards (id),
    notes                  TEXT,
    status                 TEXT NOT NULL CHECK (status IN ('active', 'paused', 'removed')),
    generated_through      TEXT,
    removed_at             TIMESTAMP,
    created_at             TIMESTAMP NOT NULL,
    updated_at             TIMESTAMP NOT NULL,
    CHECK ((frequency = 'semimonthly') = (second_due_day IS NOT NULL))
)`,
	fill: `INSERT INTO bill_templates_new (id, user_id, name, amount, category_id, frequency, start_date, due_day, end_date,
    default_payment_method, default_account_id, default_credit_card_id, notes, status, generated_through, removed_at,
    created_at, updated_at)
SELECT id, user_id, name, amount, category_id, frequency, start_date, due_day, end_date,
    default_payment_method, default_account_id, default_credit_card_id, notes, status, generated_through, removed_at,
    created_at, updated_at FROM bill_templates`,
	indexes: []string{"CREATE INDEX bill_templates_user ON bill_templates (user_id, status, generated_through)"},
}}

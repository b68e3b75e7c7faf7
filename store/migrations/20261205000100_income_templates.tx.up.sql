-- Recurring income (docs/domain.md "Recurring income and semi-monthly
-- schedules"): income templates and their expected income, materialized
-- lazily like bill templates and bills. A removed template is kept for the
-- entries that outlive it; generated_through is the last date through which
-- its occurrences exist (NULL: none yet).
CREATE TABLE income_templates (
    id                TEXT PRIMARY KEY,
    user_id           TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name              TEXT NOT NULL,
    amount            INTEGER NOT NULL CHECK (amount > 0),
    category_id       TEXT NOT NULL REFERENCES categories (id),
    frequency         TEXT NOT NULL CHECK (frequency IN ('weekly', 'biweekly', 'semimonthly', 'monthly', 'quarterly', 'semiannual', 'yearly')),
    start_date        TEXT NOT NULL,
    due_day           INTEGER CHECK (due_day BETWEEN 1 AND 31),
    second_due_day    INTEGER CHECK (second_due_day BETWEEN 1 AND 31),
    end_date          TEXT,
    account_id        TEXT REFERENCES accounts (id),
    notes             TEXT,
    status            TEXT NOT NULL CHECK (status IN ('active', 'paused', 'removed')),
    generated_through TEXT,
    removed_at        TIMESTAMP,
    created_at        TIMESTAMP NOT NULL,
    updated_at        TIMESTAMP NOT NULL,
    CHECK ((frequency = 'semimonthly') = (second_due_day IS NOT NULL))
);
--bun:split
CREATE INDEX income_templates_user ON income_templates (user_id, status, generated_through);
--bun:split

-- An entry copies the template's name, category and amount when it is
-- materialized. income_id is the income a confirm recorded.
CREATE TABLE expected_income (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    template_id   TEXT NOT NULL REFERENCES income_templates (id),
    name          TEXT NOT NULL,
    category_id   TEXT NOT NULL REFERENCES categories (id),
    amount        INTEGER NOT NULL CHECK (amount > 0),
    expected_date TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('expected', 'received', 'skipped')),
    income_id     TEXT REFERENCES income (id),
    created_at    TIMESTAMP NOT NULL,
    updated_at    TIMESTAMP NOT NULL,
    CHECK ((status = 'received') = (income_id IS NOT NULL))
);
--bun:split
-- One entry per occurrence: two requests materializing at once cannot both
-- create it, and generation inserts with ON CONFLICT DO NOTHING.
CREATE UNIQUE INDEX expected_income_occurrence ON expected_income (template_id, expected_date);
--bun:split
CREATE INDEX expected_income_user ON expected_income (user_id, expected_date, id);
--bun:split
CREATE INDEX expected_income_user_status ON expected_income (user_id, status, expected_date, id);

-- User settings (domain.md §2.1): the profile picture, the app settings and
-- the budget thresholds of each user.

-- The profile picture is either an external https URL or an upload stored
-- under the data directory's media/profile-pictures folder by its file name
-- (a UUIDv7 and the extension of its sniffed type); at most one is set.
ALTER TABLE users ADD COLUMN profile_picture_url TEXT;
--bun:split
ALTER TABLE users ADD COLUMN profile_picture_file TEXT;
--bun:split

-- App settings. A user without a row has the defaults, so existing users need
-- no backfill and a new user costs no extra insert.
CREATE TABLE user_settings (
    user_id                TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    currency               TEXT NOT NULL,
    timezone               TEXT NOT NULL,
    date_format            TEXT NOT NULL CHECK (date_format IN ('YYYY-MM-DD', 'MM/DD/YYYY', 'DD/MM/YYYY', 'DD MMM YYYY')),
    week_start             TEXT NOT NULL CHECK (week_start IN ('monday', 'sunday')),
    default_payment_method TEXT NOT NULL CHECK (default_payment_method IN ('Cash', 'Account Debit', 'Credit Card')),
    budget_warning_percent INTEGER NOT NULL CHECK (budget_warning_percent BETWEEN 1 AND 100),
    due_soon_days          INTEGER NOT NULL CHECK (due_soon_days BETWEEN 1 AND 31),
    updated_at             TIMESTAMP NOT NULL
) WITHOUT ROWID;
--bun:split

-- Monthly spending limits, at most one per expense category. The set is
-- replaced as a whole; archiving a category deletes its row.
CREATE TABLE budget_thresholds (
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    category_id     TEXT NOT NULL REFERENCES categories (id),
    monthly_limit   INTEGER NOT NULL CHECK (monthly_limit > 0),
    warning_percent INTEGER NOT NULL CHECK (warning_percent BETWEEN 1 AND 100),
    created_at      TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, category_id)
) WITHOUT ROWID;

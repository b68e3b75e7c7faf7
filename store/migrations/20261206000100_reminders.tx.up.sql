-- Reminders (docs/domain.md "Reminders"): each user's preferences, and the
-- reminders claimed for them, whose unique key makes each sent at most once.

-- A user without a row has the defaults, reminders off; the scheduler reads
-- only the rows with enabled = 1, through the partial index below.
CREATE TABLE reminder_settings (
    user_id          TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    enabled          BOOLEAN NOT NULL,
    bill_days        INTEGER NOT NULL CHECK (bill_days BETWEEN 0 AND 31),
    statement_days   INTEGER NOT NULL CHECK (statement_days BETWEEN 0 AND 31),
    loan_days        INTEGER NOT NULL CHECK (loan_days BETWEEN 0 AND 31),
    budget_threshold BOOLEAN NOT NULL,
    digest_day       TEXT NOT NULL CHECK (digest_day IN ('off', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday')),
    digest_hour      INTEGER NOT NULL CHECK (digest_hour BETWEEN 0 AND 23),
    quiet_start      TEXT,
    quiet_end        TEXT,
    updated_at       TIMESTAMP NOT NULL
) WITHOUT ROWID;
--bun:split
CREATE INDEX reminder_settings_enabled ON reminder_settings (user_id) WHERE enabled;
--bun:split

-- A reminder is claimed by inserting its row before it is sent: the unique
-- key (user, kind, subject, occurrence) lets one insert win, whatever the
-- number of passes, restarts or processes. delivery then records what the
-- chat send did; a pending row whose process died is never sent again.
CREATE TABLE reminders (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('bill_due', 'statement_due', 'loan_due', 'budget_threshold', 'weekly_digest')),
    subject    TEXT NOT NULL,
    occurrence TEXT NOT NULL,
    message    TEXT NOT NULL,
    delivery   TEXT NOT NULL CHECK (delivery IN ('pending', 'sent', 'failed', 'home_only')),
    error      TEXT,
    created_at TIMESTAMP NOT NULL,
    sent_at    TIMESTAMP,
    UNIQUE (user_id, kind, subject, occurrence)
) WITHOUT ROWID;
--bun:split
CREATE INDEX reminders_user_created ON reminders (user_id, created_at);

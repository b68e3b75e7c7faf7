-- Exchange rates (docs/domain.md "Exchange rates"): on date, 1 base is worth
-- rate quote. Fetched rates (ecb, frankfurter) are the server's and have no
-- user; a manual rate belongs to the user who entered it and goes with them.
-- The rate is its exact decimal text (finance.FXRate), never a float.
CREATE TABLE exchange_rates (
    id         TEXT PRIMARY KEY,
    user_id    TEXT REFERENCES users (id) ON DELETE CASCADE,
    base       TEXT NOT NULL CHECK (length(base) = 3),
    quote      TEXT NOT NULL CHECK (length(quote) = 3 AND quote <> base),
    date       TEXT NOT NULL,
    rate       TEXT NOT NULL,
    source     TEXT NOT NULL CHECK (source IN ('ecb', 'frankfurter', 'manual')),
    created_at TIMESTAMP NOT NULL,
    CHECK ((source = 'manual') = (user_id IS NOT NULL))
);
--bun:split
-- One rate per owner, pair, date and source. The server's rates have no
-- user, and NULLs never collide in a unique index, so the key reads the
-- owner as '' for them: a fetch repeated, or two servers fetching into one
-- database, adds nothing (INSERT ... ON CONFLICT DO NOTHING).
CREATE UNIQUE INDEX exchange_rates_key ON exchange_rates (COALESCE(user_id, ''), base, quote, date, source);
--bun:split
-- "The latest rate of a pair on or before a date": the pair's rows by date,
-- read backwards from the date; the owner is checked on the few rows read.
CREATE INDEX exchange_rates_pair_date ON exchange_rates (base, quote, date);
--bun:split
-- A user's manual rates (their list, their export).
CREATE INDEX exchange_rates_user ON exchange_rates (user_id, date) WHERE user_id IS NOT NULL;

-- The Postgres schema at SQLite's migration 20261216000300: written in the
-- next change. A Postgres database does not replay SQLite's history.
SELECT 1;

-- SQLite's 20261217000100 turns timestamps stored as text into integer
-- microseconds. Postgres stores timestamptz natively, at microseconds, from
-- its baseline on: nothing to convert.
SELECT 1;

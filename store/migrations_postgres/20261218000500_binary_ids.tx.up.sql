-- SQLite's 20261218000500 stores ids as their 16 bytes instead of 36
-- characters of text. Postgres keeps them as text in this version: its
-- kept totals hold '' for "no category" and "no card" in id columns, which
-- uuid cannot; nothing to convert.
SELECT 1;

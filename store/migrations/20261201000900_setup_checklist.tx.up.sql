-- The first-run checklist on Home (add an account, a card, an expense,
-- connect an agent) ticks itself off from the ledger; only the person
-- putting it away is stored. It lives with the app settings so an export
-- carries it; NULL while the checklist shows.
ALTER TABLE user_settings ADD COLUMN checklist_dismissed_at TIMESTAMP;

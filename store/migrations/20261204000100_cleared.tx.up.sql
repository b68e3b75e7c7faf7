-- Reconciliation (docs/domain.md "Reconciliation"): every account line and
-- card row carries whether the bank has shown it. Rows written before start
-- pending, since nobody has checked them, except what an import wrote: those
-- came from the bank's own file.
ALTER TABLE account_transactions ADD COLUMN cleared TEXT NOT NULL DEFAULT 'pending'
    CHECK (cleared IN ('pending', 'cleared', 'reconciled'));
ALTER TABLE card_transactions ADD COLUMN cleared TEXT NOT NULL DEFAULT 'pending'
    CHECK (cleared IN ('pending', 'cleared'));
UPDATE account_transactions SET cleared = 'cleared'
    WHERE id IN (SELECT row_id FROM import_rows WHERE row_id IS NOT NULL);
UPDATE card_transactions SET cleared = 'cleared'
    WHERE id IN (SELECT row_id FROM import_rows WHERE row_id IS NOT NULL);
-- The cleared balance of a reconcile sums one account's lines up to a date.
CREATE INDEX account_transactions_cleared ON account_transactions (account_id, cleared, date) WHERE status = 'posted';

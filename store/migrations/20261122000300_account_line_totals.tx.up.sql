-- Per-account totals of posted lines, kept by triggers inside the writing
-- transaction. An account's balance is still never a stored column of the
-- account: it is opening_balance + credits - debits, computed on read, but
-- reading it no longer sums every line (an account with 100,000 lines took
-- tens of milliseconds). Triggers keep the totals right whichever code path
-- posts, edits, voids or deletes a line.
CREATE TABLE account_line_totals (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    credits    INTEGER NOT NULL,
    debits     INTEGER NOT NULL
) WITHOUT ROWID;
--bun:split
INSERT INTO account_line_totals (account_id, credits, debits)
SELECT account_id,
       SUM(CASE WHEN type = 'credit' THEN amount ELSE 0 END),
       SUM(CASE WHEN type = 'debit' THEN amount ELSE 0 END)
FROM account_transactions WHERE status = 'posted' GROUP BY account_id;
--bun:split
CREATE TRIGGER account_line_totals_insert AFTER INSERT ON account_transactions
WHEN NEW.status = 'posted'
BEGIN
    INSERT INTO account_line_totals (account_id, credits, debits)
    VALUES (NEW.account_id,
            CASE WHEN NEW.type = 'credit' THEN NEW.amount ELSE 0 END,
            CASE WHEN NEW.type = 'debit' THEN NEW.amount ELSE 0 END)
    ON CONFLICT (account_id) DO UPDATE SET credits = credits + excluded.credits, debits = debits + excluded.debits;
END;
--bun:split
CREATE TRIGGER account_line_totals_update AFTER UPDATE OF status, type, amount, account_id ON account_transactions
BEGIN
    UPDATE account_line_totals
    SET credits = credits - CASE WHEN OLD.type = 'credit' THEN OLD.amount ELSE 0 END,
        debits  = debits - CASE WHEN OLD.type = 'debit' THEN OLD.amount ELSE 0 END
    WHERE account_id = OLD.account_id AND OLD.status = 'posted';
    INSERT INTO account_line_totals (account_id, credits, debits)
    SELECT NEW.account_id,
           CASE WHEN NEW.type = 'credit' THEN NEW.amount ELSE 0 END,
           CASE WHEN NEW.type = 'debit' THEN NEW.amount ELSE 0 END
    WHERE NEW.status = 'posted'
    ON CONFLICT (account_id) DO UPDATE SET credits = credits + excluded.credits, debits = debits + excluded.debits;
END;
--bun:split
CREATE TRIGGER account_line_totals_delete AFTER DELETE ON account_transactions
WHEN OLD.status = 'posted'
BEGIN
    UPDATE account_line_totals
    SET credits = credits - CASE WHEN OLD.type = 'credit' THEN OLD.amount ELSE 0 END,
        debits  = debits - CASE WHEN OLD.type = 'debit' THEN OLD.amount ELSE 0 END
    WHERE account_id = OLD.account_id;
END;
--bun:split
-- The covering index that served the old per-read sum is no longer read.
DROP INDEX account_transactions_balance;

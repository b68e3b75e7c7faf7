-- Per-card totals of the rows that count toward what a card owes (§4.3:
-- unbilled or billed rows; refunds are credits, every other type a charge),
-- kept by triggers inside the writing transaction, as account_line_totals
-- are for accounts. A card's outstanding balance, available credit and
-- unbilled total no longer sum every row on each read: a card with 100,000
-- rows took about 40 ms, which every card list, the dashboard and two
-- reports paid. Triggers keep the totals right whichever code path inserts,
-- bills, converts, voids or edits a row.
CREATE TABLE card_totals (
    credit_card_id   TEXT PRIMARY KEY REFERENCES credit_cards (id) ON DELETE CASCADE,
    charges          INTEGER NOT NULL,
    credits          INTEGER NOT NULL,
    unbilled_charges INTEGER NOT NULL,
    unbilled_credits INTEGER NOT NULL
) WITHOUT ROWID;
--bun:split
INSERT INTO card_totals (credit_card_id, charges, credits, unbilled_charges, unbilled_credits)
SELECT credit_card_id,
       SUM(CASE WHEN type <> 'refund' THEN amount ELSE 0 END),
       SUM(CASE WHEN type = 'refund' THEN amount ELSE 0 END),
       SUM(CASE WHEN type <> 'refund' AND status = 'unbilled' THEN amount ELSE 0 END),
       SUM(CASE WHEN type = 'refund' AND status = 'unbilled' THEN amount ELSE 0 END)
FROM card_transactions WHERE status IN ('unbilled', 'billed') GROUP BY credit_card_id;
--bun:split
CREATE TRIGGER card_totals_insert AFTER INSERT ON card_transactions
WHEN NEW.status IN ('unbilled', 'billed')
BEGIN
    INSERT INTO card_totals (credit_card_id, charges, credits, unbilled_charges, unbilled_credits)
    VALUES (NEW.credit_card_id,
            CASE WHEN NEW.type <> 'refund' THEN NEW.amount ELSE 0 END,
            CASE WHEN NEW.type = 'refund' THEN NEW.amount ELSE 0 END,
            CASE WHEN NEW.type <> 'refund' AND NEW.status = 'unbilled' THEN NEW.amount ELSE 0 END,
            CASE WHEN NEW.type = 'refund' AND NEW.status = 'unbilled' THEN NEW.amount ELSE 0 END)
    ON CONFLICT (credit_card_id) DO UPDATE SET
        charges = charges + excluded.charges, credits = credits + excluded.credits,
        unbilled_charges = unbilled_charges + excluded.unbilled_charges,
        unbilled_credits = unbilled_credits + excluded.unbilled_credits;
END;
--bun:split
-- Billing a backlog moves rows from unbilled to billed: the charges stay and
-- only the unbilled figures change, one small update per row.
CREATE TRIGGER card_totals_update AFTER UPDATE OF status, type, amount, credit_card_id ON card_transactions
WHEN OLD.status IN ('unbilled', 'billed') OR NEW.status IN ('unbilled', 'billed')
BEGIN
    UPDATE card_totals SET
        charges = charges - CASE WHEN OLD.type <> 'refund' THEN OLD.amount ELSE 0 END,
        credits = credits - CASE WHEN OLD.type = 'refund' THEN OLD.amount ELSE 0 END,
        unbilled_charges = unbilled_charges - CASE WHEN OLD.type <> 'refund' AND OLD.status = 'unbilled' THEN OLD.amount ELSE 0 END,
        unbilled_credits = unbilled_credits - CASE WHEN OLD.type = 'refund' AND OLD.status = 'unbilled' THEN OLD.amount ELSE 0 END
    WHERE credit_card_id = OLD.credit_card_id AND OLD.status IN ('unbilled', 'billed');
    INSERT INTO card_totals (credit_card_id, charges, credits, unbilled_charges, unbilled_credits)
    SELECT NEW.credit_card_id,
           CASE WHEN NEW.type <> 'refund' THEN NEW.amount ELSE 0 END,
           CASE WHEN NEW.type = 'refund' THEN NEW.amount ELSE 0 END,
           CASE WHEN NEW.type <> 'refund' AND NEW.status = 'unbilled' THEN NEW.amount ELSE 0 END,
           CASE WHEN NEW.type = 'refund' AND NEW.status = 'unbilled' THEN NEW.amount ELSE 0 END
    WHERE NEW.status IN ('unbilled', 'billed')
    ON CONFLICT (credit_card_id) DO UPDATE SET
        charges = charges + excluded.charges, credits = credits + excluded.credits,
        unbilled_charges = unbilled_charges + excluded.unbilled_charges,
        unbilled_credits = unbilled_credits + excluded.unbilled_credits;
END;
--bun:split
CREATE TRIGGER card_totals_delete AFTER DELETE ON card_transactions
WHEN OLD.status IN ('unbilled', 'billed')
BEGIN
    UPDATE card_totals SET
        charges = charges - CASE WHEN OLD.type <> 'refund' THEN OLD.amount ELSE 0 END,
        credits = credits - CASE WHEN OLD.type = 'refund' THEN OLD.amount ELSE 0 END,
        unbilled_charges = unbilled_charges - CASE WHEN OLD.type <> 'refund' AND OLD.status = 'unbilled' THEN OLD.amount ELSE 0 END,
        unbilled_credits = unbilled_credits - CASE WHEN OLD.type = 'refund' AND OLD.status = 'unbilled' THEN OLD.amount ELSE 0 END
    WHERE credit_card_id = OLD.credit_card_id;
END;
--bun:split
-- The covering index that served the per-read sum is no longer read, and
-- every billed row had to move in it.
DROP INDEX card_transactions_figures;

-- Billing a statement backlog moves every row of the card from unbilled to
-- billed in one UPDATE. The per-row trigger would then change the card's
-- totals once per row (two statements each, 100,000 times for five years of
-- purchases); the billing instead writes the card's id here for the length
-- of its transaction, the trigger skips that card's rows, and the billing
-- moves the unbilled figures with one update before deleting the row again.
-- The row never outlives the transaction that wrote it, so every other
-- write keeps the per-row trigger.
CREATE TABLE card_totals_deferred (
    credit_card_id TEXT PRIMARY KEY
) WITHOUT ROWID;
--bun:split
DROP TRIGGER card_totals_update;
--bun:split
CREATE TRIGGER card_totals_update AFTER UPDATE OF status, type, amount, credit_card_id ON card_transactions
WHEN (OLD.status IN ('unbilled', 'billed') OR NEW.status IN ('unbilled', 'billed'))
    AND NOT EXISTS (SELECT 1 FROM card_totals_deferred WHERE credit_card_id = OLD.credit_card_id)
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

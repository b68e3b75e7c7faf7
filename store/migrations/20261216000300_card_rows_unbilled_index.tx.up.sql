-- Billing a statement moves a card's rows from unbilled to billed. With the
-- status inside card_transactions_card (credit_card_id, status, date, id),
-- each billed row's entry moved from the unbilled part of the card's range
-- to the billed part: a delete and an insert in the largest index of the
-- table, 100,000 of each for five years of purchases. The card's index now
-- leaves the status out, so billing does not touch it; the reads that want
-- unbilled rows (the statement cursors' earliest unbilled date, billing's
-- own WHERE, a row's billing) seek a partial index of the unbilled rows
-- alone, from which billing only deletes. The reads by card, status and
-- dates seek the card and the dates and test the status of the rows found
-- (voided and converted rows are few).
DROP INDEX card_transactions_card;
--bun:split
CREATE INDEX card_transactions_card ON card_transactions (credit_card_id, date, id);
--bun:split
CREATE INDEX card_transactions_unbilled ON card_transactions (credit_card_id, date, id) WHERE status = 'unbilled';
--bun:split

-- A move between unbilled and billed changes no spending (both count), so
-- it no longer takes a line out of spending_days and puts it back.
DROP TRIGGER spending_days_card_update;
--bun:split
CREATE TRIGGER spending_days_card_update AFTER UPDATE OF status, type, amount, date, category_id, interest_portion, credit_card_id ON card_transactions
WHEN NEW.type <> 'purchase' AND (
    (OLD.status IS NOT NEW.status AND NOT (OLD.status IN ('unbilled', 'billed') AND NEW.status IN ('unbilled', 'billed')))
    OR OLD.type IS NOT NEW.type OR OLD.amount IS NOT NEW.amount
    OR OLD.date IS NOT NEW.date OR OLD.category_id IS NOT NEW.category_id OR OLD.interest_portion IS NOT NEW.interest_portion
    OR OLD.credit_card_id IS NOT NEW.credit_card_id)
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT o.user_id, o.date, o.currency, o.category_id, 'Credit Card', o.credit_card_id, o.amount, -1 FROM (
        SELECT OLD.user_id AS user_id, OLD.date AS date, OLD.credit_card_id AS credit_card_id,
            (SELECT cc.currency FROM credit_cards AS cc WHERE cc.id = OLD.credit_card_id) AS currency,
            CASE WHEN OLD.type = 'refund' THEN OLD.category_id
                ELSE (SELECT c.id FROM categories AS c WHERE c.user_id = OLD.user_id AND c.is_system AND c.name_key = 'card fees & interest') END
                AS category_id,
            -(CASE OLD.type WHEN 'refund' THEN -OLD.amount WHEN 'installment' THEN OLD.interest_portion ELSE OLD.amount END) AS amount
        WHERE OLD.status IN ('unbilled', 'billed') AND (OLD.type IN ('fee', 'interest')
            OR (OLD.type = 'installment' AND COALESCE(OLD.interest_portion, 0) > 0)
            OR (OLD.type = 'refund' AND OLD.category_id IS NOT NULL))
    ) AS o WHERE o.category_id IS NOT NULL
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT l.user_id, l.date, l.currency, l.category_id, 'Credit Card', l.credit_card_id, l.amount, 1
    FROM card_spending_lines AS l WHERE l.id = NEW.id AND l.category_id IS NOT NULL
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;

-- Expense lines per day and category, kept by triggers in the writing
-- transaction: the by-category part of the expense summary (domain.md
-- §5.1). spending_days cannot give it: a card refund or fee lands in the same
-- (day, category, 'Credit Card', card) row as the expenses paid by that card,
-- so the expenses' own sum and count are lost there. A line is a non-voided
-- expense with a category, or one part of a non-voided split expense (its
-- category is NULL), under the expense's date; count counts lines, as
-- by_category[].count always has. A row whose count fell back to 0 is empty.
CREATE TABLE expense_category_days (
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    date        TEXT NOT NULL,
    category_id TEXT NOT NULL,
    amount      INTEGER NOT NULL,
    count       INTEGER NOT NULL,
    PRIMARY KEY (user_id, date, category_id)
) WITHOUT ROWID;
--bun:split

-- The totals of the rows already written.
INSERT INTO expense_category_days (user_id, date, category_id, amount, count)
SELECT x.user_id, x.date, x.category_id, SUM(x.amount), COUNT(*)
FROM (
    SELECT e.user_id, e.date, e.category_id, e.amount
    FROM expenses AS e WHERE e.status = 'active' AND e.category_id IS NOT NULL
    UNION ALL
    SELECT e.user_id, e.date, s.category_id, s.amount
    FROM expense_splits AS s JOIN expenses AS e ON e.id = s.expense_id WHERE e.status = 'active'
) AS x
GROUP BY x.user_id, x.date, x.category_id;
--bun:split

CREATE TRIGGER expense_category_days_expense_insert AFTER INSERT ON expenses
WHEN NEW.status = 'active' AND NEW.category_id IS NOT NULL
BEGIN
    INSERT INTO expense_category_days (user_id, date, category_id, amount, count)
    VALUES (NEW.user_id, NEW.date, NEW.category_id, NEW.amount, 1)
    ON CONFLICT (user_id, date, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + 1;
END;
--bun:split
CREATE TRIGGER expense_category_days_expense_update AFTER UPDATE OF status, amount, date, category_id ON expenses
WHEN OLD.status IS NOT NEW.status OR OLD.amount IS NOT NEW.amount OR OLD.date IS NOT NEW.date
    OR OLD.category_id IS NOT NEW.category_id
BEGIN
    -- What the expense counted before.
    INSERT INTO expense_category_days (user_id, date, category_id, amount, count)
    SELECT OLD.user_id, OLD.date, OLD.category_id, -OLD.amount, -1
    WHERE OLD.status = 'active' AND OLD.category_id IS NOT NULL
    ON CONFLICT (user_id, date, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    INSERT INTO expense_category_days (user_id, date, category_id, amount, count)
    SELECT OLD.user_id, OLD.date, s.category_id, -s.amount, -1
    FROM expense_splits AS s WHERE s.expense_id = OLD.id AND OLD.status = 'active'
    ON CONFLICT (user_id, date, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    -- What it counts now.
    INSERT INTO expense_category_days (user_id, date, category_id, amount, count)
    SELECT NEW.user_id, NEW.date, NEW.category_id, NEW.amount, 1
    WHERE NEW.status = 'active' AND NEW.category_id IS NOT NULL
    ON CONFLICT (user_id, date, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    INSERT INTO expense_category_days (user_id, date, category_id, amount, count)
    SELECT NEW.user_id, NEW.date, s.category_id, s.amount, 1
    FROM expense_splits AS s WHERE s.expense_id = NEW.id AND NEW.status = 'active'
    ON CONFLICT (user_id, date, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
-- Deleting an expense (only with its user): spending_days_expense_delete
-- takes its parts first, whose trigger below removes them; the expense's own
-- line is a plain UPDATE, which never inserts a row for a user being deleted.
CREATE TRIGGER expense_category_days_expense_delete BEFORE DELETE ON expenses
WHEN OLD.status = 'active' AND OLD.category_id IS NOT NULL
BEGIN
    UPDATE expense_category_days SET amount = amount - OLD.amount, count = count - 1
    WHERE user_id = OLD.user_id AND date = OLD.date AND category_id = OLD.category_id;
END;
--bun:split
CREATE TRIGGER expense_category_days_split_insert AFTER INSERT ON expense_splits
BEGIN
    INSERT INTO expense_category_days (user_id, date, category_id, amount, count)
    SELECT e.user_id, e.date, NEW.category_id, NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
CREATE TRIGGER expense_category_days_split_delete AFTER DELETE ON expense_splits
BEGIN
    UPDATE expense_category_days SET amount = amount - OLD.amount, count = count - 1
    WHERE (user_id, date, category_id) IN (
        SELECT e.user_id, e.date, OLD.category_id FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active');
END;
--bun:split
CREATE TRIGGER expense_category_days_split_update AFTER UPDATE OF amount, category_id, expense_id ON expense_splits
BEGIN
    INSERT INTO expense_category_days (user_id, date, category_id, amount, count)
    SELECT e.user_id, e.date, OLD.category_id, -OLD.amount, -1
    FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    INSERT INTO expense_category_days (user_id, date, category_id, amount, count)
    SELECT e.user_id, e.date, NEW.category_id, NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split

-- The card rows that count as spending (fees, interest, installments with
-- interest, refunds), by user and date: the summary's other spending seeks
-- these few instead of every purchase of the range. Purchases, the bulk of
-- card rows, are not in this index and do not pay for it on write.
CREATE INDEX card_transactions_user_spending ON card_transactions (user_id, date, type, status, amount, interest_portion)
WHERE type <> 'purchase' AND status IN ('unbilled', 'billed');

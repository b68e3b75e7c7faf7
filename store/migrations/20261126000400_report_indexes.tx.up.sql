-- Daily totals for the dashboard and the reports (domain.md §5.5, §5.7),
-- kept by triggers inside the writing transaction, and the indexes the
-- remaining report queries seek. Checked with EXPLAIN QUERY PLAN against the
-- queries in store/reports.go.
--
-- A five-year report over a million expenses cannot sum the rows it covers:
-- visiting a million index entries takes hundreds of milliseconds. It sums
-- these days instead, at most one row per day, category, payment method
-- and card that had any spending: tens of thousands of rows for five years.
-- Triggers keep them right whichever code path writes, as account_line_totals
-- does for balances.

-- spending_days holds the spending lines of §1.6, summed per day and per
-- (category, payment method, card):
--   1. non-voided expenses, a split expense as its parts (under the
--      expense's date, method and card);
--   2. card fees and interest, unbilled or billed, under Card Fees & Interest;
--   3. the interest portion of installment rows, unbilled or billed, there too;
--   4. the interest part of loan payments, under Loan Interest;
--   5. minus card refunds, unbilled or billed, in their own category.
-- Card rows (2, 3, 5) carry the method 'Credit Card' and their card; loan
-- interest carries the method '' and no card. credit_card_id is '' for no
-- card: keys hold no NULL, so the upserts below always find their row.
-- lines counts the lines summed; a row whose lines fell back to 0 is empty.
CREATE TABLE spending_days (
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    date           TEXT NOT NULL,
    category_id    TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    credit_card_id TEXT NOT NULL,
    amount         INTEGER NOT NULL,
    lines          INTEGER NOT NULL,
    PRIMARY KEY (user_id, date, category_id, payment_method, credit_card_id)
) WITHOUT ROWID;
--bun:split

-- expense_days holds the non-voided expenses themselves (a split expense
-- once, for its whole amount) per day and payment method: the
-- payment-methods report and the expense terms of cash flow.
CREATE TABLE expense_days (
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    date           TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    amount         INTEGER NOT NULL,
    count          INTEGER NOT NULL,
    PRIMARY KEY (user_id, date, payment_method)
) WITHOUT ROWID;
--bun:split

-- The totals of the rows already written.
INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
SELECT x.user_id, x.date, x.category_id, x.payment_method, x.credit_card_id, SUM(x.amount), COUNT(*)
FROM (
    SELECT e.user_id, e.date, e.category_id, e.payment_method, COALESCE(e.credit_card_id, '') AS credit_card_id, e.amount
    FROM expenses AS e WHERE e.status = 'active' AND e.category_id IS NOT NULL
    UNION ALL
    SELECT e.user_id, e.date, s.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), s.amount
    FROM expense_splits AS s JOIN expenses AS e ON e.id = s.expense_id WHERE e.status = 'active'
    UNION ALL
    SELECT t.user_id, t.date,
        CASE WHEN t.type = 'refund' THEN t.category_id
            ELSE (SELECT c.id FROM categories AS c WHERE c.user_id = t.user_id AND c.is_system AND c.name_key = 'card fees & interest') END,
        'Credit Card', t.credit_card_id,
        CASE t.type WHEN 'refund' THEN -t.amount WHEN 'installment' THEN t.interest_portion ELSE t.amount END
    FROM card_transactions AS t
    WHERE t.status IN ('unbilled', 'billed') AND (t.type IN ('fee', 'interest')
        OR (t.type = 'installment' AND COALESCE(t.interest_portion, 0) > 0)
        OR (t.type = 'refund' AND t.category_id IS NOT NULL))
    UNION ALL
    SELECT p.user_id, p.date,
        (SELECT c.id FROM categories AS c WHERE c.user_id = p.user_id AND c.is_system AND c.name_key = 'loan interest'),
        '', '', p.interest_part
    FROM loan_payments AS p WHERE p.interest_part > 0
) AS x
WHERE x.category_id IS NOT NULL
GROUP BY x.user_id, x.date, x.category_id, x.payment_method, x.credit_card_id;
--bun:split
INSERT INTO expense_days (user_id, date, payment_method, amount, count)
SELECT user_id, date, payment_method, SUM(amount), COUNT(*) FROM expenses WHERE status = 'active'
GROUP BY user_id, date, payment_method;
--bun:split

-- Expenses. An expense counts under its category unless it is split
-- (category NULL); its parts count whenever it is active, as in the
-- expense summary. Removing a line is an upsert of its negative: its row
-- exists, since adding the line made it.
CREATE TRIGGER spending_days_expense_insert AFTER INSERT ON expenses
WHEN NEW.status = 'active'
BEGIN
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, NEW.category_id, NEW.payment_method, COALESCE(NEW.credit_card_id, ''), NEW.amount, 1
    WHERE NEW.category_id IS NOT NULL
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO expense_days (user_id, date, payment_method, amount, count)
    VALUES (NEW.user_id, NEW.date, NEW.payment_method, NEW.amount, 1)
    ON CONFLICT (user_id, date, payment_method) DO UPDATE SET amount = amount + excluded.amount, count = count + 1;
END;
--bun:split
CREATE TRIGGER spending_days_expense_update AFTER UPDATE OF status, amount, date, category_id, payment_method, credit_card_id ON expenses
WHEN OLD.status IS NOT NEW.status OR OLD.amount IS NOT NEW.amount OR OLD.date IS NOT NEW.date
    OR OLD.category_id IS NOT NEW.category_id OR OLD.payment_method IS NOT NEW.payment_method
    OR OLD.credit_card_id IS NOT NEW.credit_card_id
BEGIN
    -- What the expense counted before.
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT OLD.user_id, OLD.date, OLD.category_id, OLD.payment_method, COALESCE(OLD.credit_card_id, ''), -OLD.amount, -1
    WHERE OLD.status = 'active' AND OLD.category_id IS NOT NULL
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT OLD.user_id, OLD.date, s.category_id, OLD.payment_method, COALESCE(OLD.credit_card_id, ''), -s.amount, -1
    FROM expense_splits AS s WHERE s.expense_id = OLD.id AND OLD.status = 'active'
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO expense_days (user_id, date, payment_method, amount, count)
    SELECT OLD.user_id, OLD.date, OLD.payment_method, -OLD.amount, -1 WHERE OLD.status = 'active'
    ON CONFLICT (user_id, date, payment_method) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    -- What it counts now.
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, NEW.category_id, NEW.payment_method, COALESCE(NEW.credit_card_id, ''), NEW.amount, 1
    WHERE NEW.status = 'active' AND NEW.category_id IS NOT NULL
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, s.category_id, NEW.payment_method, COALESCE(NEW.credit_card_id, ''), s.amount, 1
    FROM expense_splits AS s WHERE s.expense_id = NEW.id AND NEW.status = 'active'
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO expense_days (user_id, date, payment_method, amount, count)
    SELECT NEW.user_id, NEW.date, NEW.payment_method, NEW.amount, 1 WHERE NEW.status = 'active'
    ON CONFLICT (user_id, date, payment_method) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
-- Deleting an expense (only ever as part of deleting its user) takes its
-- parts first, so that their trigger still finds it. Removals on delete are
-- plain UPDATEs: they never insert a row for a user being deleted.
CREATE TRIGGER spending_days_expense_delete BEFORE DELETE ON expenses
BEGIN
    DELETE FROM expense_splits WHERE expense_id = OLD.id;
    UPDATE spending_days SET amount = amount - OLD.amount, lines = lines - 1
    WHERE OLD.status = 'active' AND user_id = OLD.user_id AND date = OLD.date AND category_id = OLD.category_id
        AND payment_method = OLD.payment_method AND credit_card_id = COALESCE(OLD.credit_card_id, '');
    UPDATE expense_days SET amount = amount - OLD.amount, count = count - 1
    WHERE OLD.status = 'active' AND user_id = OLD.user_id AND date = OLD.date AND payment_method = OLD.payment_method;
END;
--bun:split
CREATE TRIGGER spending_days_split_insert AFTER INSERT ON expense_splits
BEGIN
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT e.user_id, e.date, NEW.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split
CREATE TRIGGER spending_days_split_delete AFTER DELETE ON expense_splits
BEGIN
    UPDATE spending_days SET amount = amount - OLD.amount, lines = lines - 1
    WHERE (user_id, date, category_id, payment_method, credit_card_id) IN (
        SELECT e.user_id, e.date, OLD.category_id, e.payment_method, COALESCE(e.credit_card_id, '')
        FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active');
END;
--bun:split
CREATE TRIGGER spending_days_split_update AFTER UPDATE OF amount, category_id, expense_id ON expense_splits
BEGIN
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT e.user_id, e.date, OLD.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), -OLD.amount, -1
    FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT e.user_id, e.date, NEW.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split

-- Card rows: fees, interest and installment interest under Card Fees &
-- Interest, refunds negative in their own category; unbilled or billed only.
CREATE VIEW card_spending_lines AS
SELECT t.id, t.user_id, t.date, t.credit_card_id,
    CASE WHEN t.type = 'refund' THEN t.category_id
        ELSE (SELECT c.id FROM categories AS c WHERE c.user_id = t.user_id AND c.is_system AND c.name_key = 'card fees & interest') END
        AS category_id,
    CASE t.type WHEN 'refund' THEN -t.amount WHEN 'installment' THEN t.interest_portion ELSE t.amount END AS amount
FROM card_transactions AS t
WHERE t.status IN ('unbilled', 'billed') AND (t.type IN ('fee', 'interest')
    OR (t.type = 'installment' AND COALESCE(t.interest_portion, 0) > 0)
    OR (t.type = 'refund' AND t.category_id IS NOT NULL));
--bun:split
CREATE TRIGGER spending_days_card_insert AFTER INSERT ON card_transactions
WHEN NEW.status IN ('unbilled', 'billed') AND NEW.type <> 'purchase'
BEGIN
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT l.user_id, l.date, l.category_id, 'Credit Card', l.credit_card_id, l.amount, 1
    FROM card_spending_lines AS l WHERE l.id = NEW.id AND l.category_id IS NOT NULL
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split
-- The row's old line cannot be read back from the table, so the update
-- trigger spells it out from OLD.
CREATE TRIGGER spending_days_card_update AFTER UPDATE OF status, type, amount, date, category_id, interest_portion, credit_card_id ON card_transactions
WHEN NEW.type <> 'purchase' AND (OLD.status IS NOT NEW.status OR OLD.type IS NOT NEW.type OR OLD.amount IS NOT NEW.amount
    OR OLD.date IS NOT NEW.date OR OLD.category_id IS NOT NEW.category_id OR OLD.interest_portion IS NOT NEW.interest_portion
    OR OLD.credit_card_id IS NOT NEW.credit_card_id)
BEGIN
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT o.user_id, o.date, o.category_id, 'Credit Card', o.credit_card_id, o.amount, -1 FROM (
        SELECT OLD.user_id AS user_id, OLD.date AS date, OLD.credit_card_id AS credit_card_id,
            CASE WHEN OLD.type = 'refund' THEN OLD.category_id
                ELSE (SELECT c.id FROM categories AS c WHERE c.user_id = OLD.user_id AND c.is_system AND c.name_key = 'card fees & interest') END
                AS category_id,
            -(CASE OLD.type WHEN 'refund' THEN -OLD.amount WHEN 'installment' THEN OLD.interest_portion ELSE OLD.amount END) AS amount
        WHERE OLD.status IN ('unbilled', 'billed') AND (OLD.type IN ('fee', 'interest')
            OR (OLD.type = 'installment' AND COALESCE(OLD.interest_portion, 0) > 0)
            OR (OLD.type = 'refund' AND OLD.category_id IS NOT NULL))
    ) AS o WHERE o.category_id IS NOT NULL
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT l.user_id, l.date, l.category_id, 'Credit Card', l.credit_card_id, l.amount, 1
    FROM card_spending_lines AS l WHERE l.id = NEW.id AND l.category_id IS NOT NULL
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split
CREATE TRIGGER spending_days_card_delete BEFORE DELETE ON card_transactions
WHEN OLD.type <> 'purchase'
BEGIN
    UPDATE spending_days SET amount = amount - (SELECT l.amount FROM card_spending_lines AS l WHERE l.id = OLD.id), lines = lines - 1
    WHERE (user_id, date, category_id, payment_method, credit_card_id) IN (
        SELECT l.user_id, l.date, l.category_id, 'Credit Card', l.credit_card_id FROM card_spending_lines AS l WHERE l.id = OLD.id);
END;
--bun:split

-- Loan payments: their interest part, under Loan Interest. Payments are
-- permanent (no void, no edit); a payment is deleted only with its user.
CREATE TRIGGER spending_days_loan_insert AFTER INSERT ON loan_payments
WHEN NEW.interest_part > 0
BEGIN
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, c.id, '', '', NEW.interest_part, 1
    FROM categories AS c WHERE c.user_id = NEW.user_id AND c.is_system AND c.name_key = 'loan interest'
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split
CREATE TRIGGER spending_days_loan_update AFTER UPDATE OF interest_part, date ON loan_payments
WHEN OLD.interest_part IS NOT NEW.interest_part OR OLD.date IS NOT NEW.date
BEGIN
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT OLD.user_id, OLD.date, c.id, '', '', -OLD.interest_part, -1
    FROM categories AS c WHERE OLD.interest_part > 0 AND c.user_id = OLD.user_id AND c.is_system AND c.name_key = 'loan interest'
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, c.id, '', '', NEW.interest_part, 1
    FROM categories AS c WHERE NEW.interest_part > 0 AND c.user_id = NEW.user_id AND c.is_system AND c.name_key = 'loan interest'
    ON CONFLICT (user_id, date, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split
CREATE TRIGGER spending_days_loan_delete BEFORE DELETE ON loan_payments
WHEN OLD.interest_part > 0
BEGIN
    UPDATE spending_days SET amount = amount - OLD.interest_part, lines = lines - 1
    WHERE user_id = OLD.user_id AND date = OLD.date AND payment_method = '' AND credit_card_id = ''
        AND category_id = (SELECT c.id FROM categories AS c WHERE c.user_id = OLD.user_id AND c.is_system AND c.name_key = 'loan interest');
END;
--bun:split

-- Income by date with its amount: the income terms are index-only range scans.
CREATE INDEX income_user_date_amount ON income (user_id, status, date, amount);
--bun:split
-- Statement payments by date (cash flow): an index-only range scan per user.
CREATE INDEX soa_payments_user_date ON soa_payments (user_id, status, date, amount);
--bun:split
-- Loan payments by date (cash flow): an index-only range scan per user.
CREATE INDEX loan_payments_user_amount ON loan_payments (user_id, date, amount);

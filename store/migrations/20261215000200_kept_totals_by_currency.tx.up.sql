-- The kept expense and spending totals, by currency (docs/domain.md "Money
-- in more than one currency", "Converting for summaries"). Until now they
-- added every expense of a day together, yen and pesos alike; a summary
-- converts each currency's sum of each date at that date's rate, so each
-- day (and month) row now belongs to one currency: an expense's own
-- currency, a card line's card's, a loan payment's loan's.
--
-- The tables hold nothing but sums of other rows, and nothing references
-- them, so each is dropped and made again with currency in its key (after
-- the date, so a range of dates is still one seek of the user's rows) and
-- filled from the rows it sums, as its first migration filled it; its
-- triggers are made again with the currency in every key they write. A
-- database whose rows are all in one currency gets the same rows with that
-- currency beside them, so every total reads as before.

DROP TRIGGER spending_days_expense_insert;
--bun:split
DROP TRIGGER spending_days_expense_update;
--bun:split
DROP TRIGGER spending_days_expense_delete;
--bun:split
DROP TRIGGER spending_days_split_insert;
--bun:split
DROP TRIGGER spending_days_split_delete;
--bun:split
DROP TRIGGER spending_days_split_update;
--bun:split
DROP TRIGGER spending_days_card_insert;
--bun:split
DROP TRIGGER spending_days_card_update;
--bun:split
DROP TRIGGER spending_days_card_delete;
--bun:split
DROP TRIGGER spending_days_loan_insert;
--bun:split
DROP TRIGGER spending_days_loan_update;
--bun:split
DROP TRIGGER spending_days_loan_delete;
--bun:split
DROP TRIGGER expense_category_days_expense_insert;
--bun:split
DROP TRIGGER expense_category_days_expense_update;
--bun:split
DROP TRIGGER expense_category_days_expense_delete;
--bun:split
DROP TRIGGER expense_category_days_split_insert;
--bun:split
DROP TRIGGER expense_category_days_split_delete;
--bun:split
DROP TRIGGER expense_category_days_split_update;
--bun:split
DROP TRIGGER expense_months_day_insert;
--bun:split
DROP TRIGGER expense_months_day_update;
--bun:split
DROP TRIGGER expense_months_day_delete;
--bun:split
DROP TRIGGER expense_category_months_day_insert;
--bun:split
DROP TRIGGER expense_category_months_day_update;
--bun:split
DROP TRIGGER expense_category_months_day_delete;
--bun:split
DROP VIEW card_spending_lines;
--bun:split
DROP TABLE spending_days;
--bun:split
DROP TABLE expense_days;
--bun:split
DROP TABLE expense_months;
--bun:split
DROP TABLE expense_category_days;
--bun:split
DROP TABLE expense_category_months;
--bun:split

-- The tables as 20261126000400, 20261127000200 and 20261127000300 made
-- them, with currency in the key (see those migrations for what each holds).
CREATE TABLE spending_days (
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    date           TEXT NOT NULL,
    currency       TEXT NOT NULL,
    category_id    TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    credit_card_id TEXT NOT NULL,
    amount         INTEGER NOT NULL,
    lines          INTEGER NOT NULL,
    PRIMARY KEY (user_id, date, currency, category_id, payment_method, credit_card_id)
) WITHOUT ROWID;
--bun:split
CREATE TABLE expense_days (
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    date           TEXT NOT NULL,
    currency       TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    amount         INTEGER NOT NULL,
    count          INTEGER NOT NULL,
    PRIMARY KEY (user_id, date, currency, payment_method)
) WITHOUT ROWID;
--bun:split
CREATE TABLE expense_category_days (
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    date        TEXT NOT NULL,
    currency    TEXT NOT NULL,
    category_id TEXT NOT NULL,
    amount      INTEGER NOT NULL,
    count       INTEGER NOT NULL,
    PRIMARY KEY (user_id, date, currency, category_id)
) WITHOUT ROWID;
--bun:split
-- A month's total is only ever read for the reporting currency's own rows:
-- another currency converts at each day's rate, so it is read by day.
CREATE TABLE expense_months (
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    month          TEXT NOT NULL,
    currency       TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    amount         INTEGER NOT NULL,
    count          INTEGER NOT NULL,
    PRIMARY KEY (user_id, month, currency, payment_method)
) WITHOUT ROWID;
--bun:split
CREATE TABLE expense_category_months (
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    month       TEXT NOT NULL,
    currency    TEXT NOT NULL,
    category_id TEXT NOT NULL,
    amount      INTEGER NOT NULL,
    count       INTEGER NOT NULL,
    PRIMARY KEY (user_id, month, currency, category_id)
) WITHOUT ROWID;
--bun:split

-- Card rows that count as spending, in their card's currency.
CREATE VIEW card_spending_lines AS
SELECT t.id, t.user_id, t.date, t.credit_card_id,
    (SELECT cc.currency FROM credit_cards AS cc WHERE cc.id = t.credit_card_id) AS currency,
    CASE WHEN t.type = 'refund' THEN t.category_id
        ELSE (SELECT c.id FROM categories AS c WHERE c.user_id = t.user_id AND c.is_system AND c.name_key = 'card fees & interest') END
        AS category_id,
    CASE t.type WHEN 'refund' THEN -t.amount WHEN 'installment' THEN t.interest_portion ELSE t.amount END AS amount
FROM card_transactions AS t
WHERE t.status IN ('unbilled', 'billed') AND (t.type IN ('fee', 'interest')
    OR (t.type = 'installment' AND COALESCE(t.interest_portion, 0) > 0)
    OR (t.type = 'refund' AND t.category_id IS NOT NULL));
--bun:split

-- The totals of the rows already written.
INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
SELECT x.user_id, x.date, x.currency, x.category_id, x.payment_method, x.credit_card_id, SUM(x.amount), COUNT(*)
FROM (
    SELECT e.user_id, e.date, e.currency, e.category_id, e.payment_method, COALESCE(e.credit_card_id, '') AS credit_card_id, e.amount
    FROM expenses AS e WHERE e.status = 'active' AND e.category_id IS NOT NULL
    UNION ALL
    SELECT e.user_id, e.date, e.currency, s.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), s.amount
    FROM expense_splits AS s JOIN expenses AS e ON e.id = s.expense_id WHERE e.status = 'active'
    UNION ALL
    SELECT l.user_id, l.date, l.currency, l.category_id, 'Credit Card', l.credit_card_id, l.amount
    FROM card_spending_lines AS l
    UNION ALL
    SELECT p.user_id, p.date, (SELECT ln.currency FROM loans AS ln WHERE ln.id = p.loan_id),
        (SELECT c.id FROM categories AS c WHERE c.user_id = p.user_id AND c.is_system AND c.name_key = 'loan interest'),
        '', '', p.interest_part
    FROM loan_payments AS p WHERE p.interest_part > 0
) AS x
WHERE x.category_id IS NOT NULL
GROUP BY x.user_id, x.date, x.currency, x.category_id, x.payment_method, x.credit_card_id;
--bun:split
INSERT INTO expense_days (user_id, date, currency, payment_method, amount, count)
SELECT user_id, date, currency, payment_method, SUM(amount), COUNT(*) FROM expenses WHERE status = 'active'
GROUP BY user_id, date, currency, payment_method;
--bun:split
INSERT INTO expense_category_days (user_id, date, currency, category_id, amount, count)
SELECT x.user_id, x.date, x.currency, x.category_id, SUM(x.amount), COUNT(*)
FROM (
    SELECT e.user_id, e.date, e.currency, e.category_id, e.amount
    FROM expenses AS e WHERE e.status = 'active' AND e.category_id IS NOT NULL
    UNION ALL
    SELECT e.user_id, e.date, e.currency, s.category_id, s.amount
    FROM expense_splits AS s JOIN expenses AS e ON e.id = s.expense_id WHERE e.status = 'active'
) AS x
GROUP BY x.user_id, x.date, x.currency, x.category_id;
--bun:split
INSERT INTO expense_months (user_id, month, currency, payment_method, amount, count)
SELECT user_id, substr(date, 1, 7), currency, payment_method, SUM(amount), SUM(count)
FROM expense_days GROUP BY user_id, substr(date, 1, 7), currency, payment_method;
--bun:split
INSERT INTO expense_category_months (user_id, month, currency, category_id, amount, count)
SELECT user_id, substr(date, 1, 7), currency, category_id, SUM(amount), SUM(count)
FROM expense_category_days GROUP BY user_id, substr(date, 1, 7), currency, category_id;
--bun:split

-- Expenses: as 20261126000400 kept them, with the expense's currency; a
-- change of currency (a Cash expense's, say) moves the lines like a change
-- of date.
CREATE TRIGGER spending_days_expense_insert AFTER INSERT ON expenses
WHEN NEW.status = 'active'
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, NEW.currency, NEW.category_id, NEW.payment_method, COALESCE(NEW.credit_card_id, ''), NEW.amount, 1
    WHERE NEW.category_id IS NOT NULL
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO expense_days (user_id, date, currency, payment_method, amount, count)
    VALUES (NEW.user_id, NEW.date, NEW.currency, NEW.payment_method, NEW.amount, 1)
    ON CONFLICT (user_id, date, currency, payment_method) DO UPDATE SET amount = amount + excluded.amount, count = count + 1;
END;
--bun:split
CREATE TRIGGER spending_days_expense_update AFTER UPDATE OF status, amount, date, currency, category_id, payment_method, credit_card_id ON expenses
WHEN OLD.status IS NOT NEW.status OR OLD.amount IS NOT NEW.amount OR OLD.date IS NOT NEW.date
    OR OLD.currency IS NOT NEW.currency OR OLD.category_id IS NOT NEW.category_id
    OR OLD.payment_method IS NOT NEW.payment_method OR OLD.credit_card_id IS NOT NEW.credit_card_id
BEGIN
    -- What the expense counted before.
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT OLD.user_id, OLD.date, OLD.currency, OLD.category_id, OLD.payment_method, COALESCE(OLD.credit_card_id, ''), -OLD.amount, -1
    WHERE OLD.status = 'active' AND OLD.category_id IS NOT NULL
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT OLD.user_id, OLD.date, OLD.currency, s.category_id, OLD.payment_method, COALESCE(OLD.credit_card_id, ''), -s.amount, -1
    FROM expense_splits AS s WHERE s.expense_id = OLD.id AND OLD.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO expense_days (user_id, date, currency, payment_method, amount, count)
    SELECT OLD.user_id, OLD.date, OLD.currency, OLD.payment_method, -OLD.amount, -1 WHERE OLD.status = 'active'
    ON CONFLICT (user_id, date, currency, payment_method) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    -- What it counts now.
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, NEW.currency, NEW.category_id, NEW.payment_method, COALESCE(NEW.credit_card_id, ''), NEW.amount, 1
    WHERE NEW.status = 'active' AND NEW.category_id IS NOT NULL
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, NEW.currency, s.category_id, NEW.payment_method, COALESCE(NEW.credit_card_id, ''), s.amount, 1
    FROM expense_splits AS s WHERE s.expense_id = NEW.id AND NEW.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO expense_days (user_id, date, currency, payment_method, amount, count)
    SELECT NEW.user_id, NEW.date, NEW.currency, NEW.payment_method, NEW.amount, 1 WHERE NEW.status = 'active'
    ON CONFLICT (user_id, date, currency, payment_method) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
CREATE TRIGGER spending_days_expense_delete BEFORE DELETE ON expenses
BEGIN
    DELETE FROM expense_splits WHERE expense_id = OLD.id;
    UPDATE spending_days SET amount = amount - OLD.amount, lines = lines - 1
    WHERE OLD.status = 'active' AND user_id = OLD.user_id AND date = OLD.date AND currency = OLD.currency
        AND category_id = OLD.category_id AND payment_method = OLD.payment_method
        AND credit_card_id = COALESCE(OLD.credit_card_id, '');
    UPDATE expense_days SET amount = amount - OLD.amount, count = count - 1
    WHERE OLD.status = 'active' AND user_id = OLD.user_id AND date = OLD.date AND currency = OLD.currency
        AND payment_method = OLD.payment_method;
END;
--bun:split
CREATE TRIGGER spending_days_split_insert AFTER INSERT ON expense_splits
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT e.user_id, e.date, e.currency, NEW.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split
CREATE TRIGGER spending_days_split_delete AFTER DELETE ON expense_splits
BEGIN
    UPDATE spending_days SET amount = amount - OLD.amount, lines = lines - 1
    WHERE (user_id, date, currency, category_id, payment_method, credit_card_id) IN (
        SELECT e.user_id, e.date, e.currency, OLD.category_id, e.payment_method, COALESCE(e.credit_card_id, '')
        FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active');
END;
--bun:split
CREATE TRIGGER spending_days_split_update AFTER UPDATE OF amount, category_id, expense_id ON expense_splits
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT e.user_id, e.date, e.currency, OLD.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), -OLD.amount, -1
    FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT e.user_id, e.date, e.currency, NEW.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split

-- Card rows, in the card's currency. A card's currency changes only while it
-- has no transactions, so a row's currency is its card's for good.
CREATE TRIGGER spending_days_card_insert AFTER INSERT ON card_transactions
WHEN NEW.status IN ('unbilled', 'billed') AND NEW.type <> 'purchase'
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT l.user_id, l.date, l.currency, l.category_id, 'Credit Card', l.credit_card_id, l.amount, 1
    FROM card_spending_lines AS l WHERE l.id = NEW.id AND l.category_id IS NOT NULL
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split
CREATE TRIGGER spending_days_card_update AFTER UPDATE OF status, type, amount, date, category_id, interest_portion, credit_card_id ON card_transactions
WHEN NEW.type <> 'purchase' AND (OLD.status IS NOT NEW.status OR OLD.type IS NOT NEW.type OR OLD.amount IS NOT NEW.amount
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
--bun:split
CREATE TRIGGER spending_days_card_delete BEFORE DELETE ON card_transactions
WHEN OLD.type <> 'purchase'
BEGIN
    UPDATE spending_days SET amount = amount - (SELECT l.amount FROM card_spending_lines AS l WHERE l.id = OLD.id), lines = lines - 1
    WHERE (user_id, date, currency, category_id, payment_method, credit_card_id) IN (
        SELECT l.user_id, l.date, l.currency, l.category_id, 'Credit Card', l.credit_card_id FROM card_spending_lines AS l WHERE l.id = OLD.id);
END;
--bun:split

-- Loan payments' interest, in the loan's currency (fixed once it has a payment).
CREATE TRIGGER spending_days_loan_insert AFTER INSERT ON loan_payments
WHEN NEW.interest_part > 0
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, (SELECT ln.currency FROM loans AS ln WHERE ln.id = NEW.loan_id), c.id, '', '', NEW.interest_part, 1
    FROM categories AS c WHERE c.user_id = NEW.user_id AND c.is_system AND c.name_key = 'loan interest'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split
CREATE TRIGGER spending_days_loan_update AFTER UPDATE OF interest_part, date ON loan_payments
WHEN OLD.interest_part IS NOT NEW.interest_part OR OLD.date IS NOT NEW.date
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT OLD.user_id, OLD.date, (SELECT ln.currency FROM loans AS ln WHERE ln.id = OLD.loan_id), c.id, '', '', -OLD.interest_part, -1
    FROM categories AS c WHERE OLD.interest_part > 0 AND c.user_id = OLD.user_id AND c.is_system AND c.name_key = 'loan interest'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines)
    SELECT NEW.user_id, NEW.date, (SELECT ln.currency FROM loans AS ln WHERE ln.id = NEW.loan_id), c.id, '', '', NEW.interest_part, 1
    FROM categories AS c WHERE NEW.interest_part > 0 AND c.user_id = NEW.user_id AND c.is_system AND c.name_key = 'loan interest'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id)
    DO UPDATE SET amount = amount + excluded.amount, lines = lines + excluded.lines;
END;
--bun:split
CREATE TRIGGER spending_days_loan_delete BEFORE DELETE ON loan_payments
WHEN OLD.interest_part > 0
BEGIN
    UPDATE spending_days SET amount = amount - OLD.interest_part, lines = lines - 1
    WHERE user_id = OLD.user_id AND date = OLD.date AND payment_method = '' AND credit_card_id = ''
        AND currency = (SELECT ln.currency FROM loans AS ln WHERE ln.id = OLD.loan_id)
        AND category_id = (SELECT c.id FROM categories AS c WHERE c.user_id = OLD.user_id AND c.is_system AND c.name_key = 'loan interest');
END;
--bun:split

-- Expense lines per day, currency and category.
CREATE TRIGGER expense_category_days_expense_insert AFTER INSERT ON expenses
WHEN NEW.status = 'active' AND NEW.category_id IS NOT NULL
BEGIN
    INSERT INTO expense_category_days (user_id, date, currency, category_id, amount, count)
    VALUES (NEW.user_id, NEW.date, NEW.currency, NEW.category_id, NEW.amount, 1)
    ON CONFLICT (user_id, date, currency, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + 1;
END;
--bun:split
CREATE TRIGGER expense_category_days_expense_update AFTER UPDATE OF status, amount, date, currency, category_id ON expenses
WHEN OLD.status IS NOT NEW.status OR OLD.amount IS NOT NEW.amount OR OLD.date IS NOT NEW.date
    OR OLD.currency IS NOT NEW.currency OR OLD.category_id IS NOT NEW.category_id
BEGIN
    -- What the expense counted before.
    INSERT INTO expense_category_days (user_id, date, currency, category_id, amount, count)
    SELECT OLD.user_id, OLD.date, OLD.currency, OLD.category_id, -OLD.amount, -1
    WHERE OLD.status = 'active' AND OLD.category_id IS NOT NULL
    ON CONFLICT (user_id, date, currency, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    INSERT INTO expense_category_days (user_id, date, currency, category_id, amount, count)
    SELECT OLD.user_id, OLD.date, OLD.currency, s.category_id, -s.amount, -1
    FROM expense_splits AS s WHERE s.expense_id = OLD.id AND OLD.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    -- What it counts now.
    INSERT INTO expense_category_days (user_id, date, currency, category_id, amount, count)
    SELECT NEW.user_id, NEW.date, NEW.currency, NEW.category_id, NEW.amount, 1
    WHERE NEW.status = 'active' AND NEW.category_id IS NOT NULL
    ON CONFLICT (user_id, date, currency, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    INSERT INTO expense_category_days (user_id, date, currency, category_id, amount, count)
    SELECT NEW.user_id, NEW.date, NEW.currency, s.category_id, s.amount, 1
    FROM expense_splits AS s WHERE s.expense_id = NEW.id AND NEW.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
CREATE TRIGGER expense_category_days_expense_delete BEFORE DELETE ON expenses
WHEN OLD.status = 'active' AND OLD.category_id IS NOT NULL
BEGIN
    UPDATE expense_category_days SET amount = amount - OLD.amount, count = count - 1
    WHERE user_id = OLD.user_id AND date = OLD.date AND currency = OLD.currency AND category_id = OLD.category_id;
END;
--bun:split
CREATE TRIGGER expense_category_days_split_insert AFTER INSERT ON expense_splits
BEGIN
    INSERT INTO expense_category_days (user_id, date, currency, category_id, amount, count)
    SELECT e.user_id, e.date, e.currency, NEW.category_id, NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
CREATE TRIGGER expense_category_days_split_delete AFTER DELETE ON expense_splits
BEGIN
    UPDATE expense_category_days SET amount = amount - OLD.amount, count = count - 1
    WHERE (user_id, date, currency, category_id) IN (
        SELECT e.user_id, e.date, e.currency, OLD.category_id FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active');
END;
--bun:split
CREATE TRIGGER expense_category_days_split_update AFTER UPDATE OF amount, category_id, expense_id ON expense_splits
BEGIN
    INSERT INTO expense_category_days (user_id, date, currency, category_id, amount, count)
    SELECT e.user_id, e.date, e.currency, OLD.category_id, -OLD.amount, -1
    FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
    INSERT INTO expense_category_days (user_id, date, currency, category_id, amount, count)
    SELECT e.user_id, e.date, e.currency, NEW.category_id, NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split

-- Month totals of the day totals, per currency.
CREATE TRIGGER expense_months_day_insert AFTER INSERT ON expense_days
BEGIN
    INSERT INTO expense_months (user_id, month, currency, payment_method, amount, count)
    VALUES (NEW.user_id, substr(NEW.date, 1, 7), NEW.currency, NEW.payment_method, NEW.amount, NEW.count)
    ON CONFLICT (user_id, month, currency, payment_method) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
CREATE TRIGGER expense_months_day_update AFTER UPDATE OF amount, count ON expense_days
BEGIN
    UPDATE expense_months SET amount = amount + NEW.amount - OLD.amount, count = count + NEW.count - OLD.count
    WHERE user_id = NEW.user_id AND month = substr(NEW.date, 1, 7) AND currency = NEW.currency AND payment_method = NEW.payment_method;
END;
--bun:split
CREATE TRIGGER expense_months_day_delete AFTER DELETE ON expense_days
BEGIN
    UPDATE expense_months SET amount = amount - OLD.amount, count = count - OLD.count
    WHERE user_id = OLD.user_id AND month = substr(OLD.date, 1, 7) AND currency = OLD.currency AND payment_method = OLD.payment_method;
END;
--bun:split
CREATE TRIGGER expense_category_months_day_insert AFTER INSERT ON expense_category_days
BEGIN
    INSERT INTO expense_category_months (user_id, month, currency, category_id, amount, count)
    VALUES (NEW.user_id, substr(NEW.date, 1, 7), NEW.currency, NEW.category_id, NEW.amount, NEW.count)
    ON CONFLICT (user_id, month, currency, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
CREATE TRIGGER expense_category_months_day_update AFTER UPDATE OF amount, count ON expense_category_days
BEGIN
    UPDATE expense_category_months SET amount = amount + NEW.amount - OLD.amount, count = count + NEW.count - OLD.count
    WHERE user_id = NEW.user_id AND month = substr(NEW.date, 1, 7) AND currency = NEW.currency AND category_id = NEW.category_id;
END;
--bun:split
CREATE TRIGGER expense_category_months_day_delete AFTER DELETE ON expense_category_days
BEGIN
    UPDATE expense_category_months SET amount = amount - OLD.amount, count = count - OLD.count
    WHERE user_id = OLD.user_id AND month = substr(OLD.date, 1, 7) AND currency = OLD.currency AND category_id = OLD.category_id;
END;

-- One table of kept daily totals instead of five (docs/benchmarks.md "Fewer
-- pages per write"). An expense used to add to spending_days and
-- expense_days through its triggers, to expense_category_days through
-- others, and those two tables' own triggers added to expense_months and
-- expense_category_months: five B-trees, each a page written by every
-- create. Now one spending_days row, keyed as before by (user, date,
-- currency, category, method, card), carries three pairs of sums:
--
--   amount, lines                      every spending line of domain.md §1.6
--                                      (an expense with a category, a part of a
--                                      split one, a card fee, interest or
--                                      refund, a loan payment's interest), as
--                                      before;
--   expense_line_amount, expense_lines the lines of expenses alone (what
--                                      expense_category_days held);
--   expense_amount, expense_count      the expenses themselves, each once (what
--                                      expense_days held). A split expense has
--                                      no category of its own and counts in the
--                                      row of category '' (empty).
--
-- A create writes one day row, in one trigger, and that row's trigger adds
-- the same change to the month's row in expense_months: one table of month
-- totals instead of two, keyed by (user, month, currency, category,
-- method), which a summary of many months reads instead of every day (a
-- five-year summary groups some 1,800 month rows instead of 55,000 day
-- rows). The sums per method or per category are read by grouping those
-- rows. expense_counts (the
-- unfiltered list's count and total, by status) stays: it is one row a user
-- and status, where a count from the day rows would read all of them. It
-- now has a row per currency too (at the end), so that a list learns
-- whether the user has expenses in another currency than the reporting one
-- from those few rows instead of from all the day rows.
--
-- The card and loan triggers write amount and lines only; the new columns'
-- default (0) is what a card or loan line adds to them, so those triggers
-- are kept as they are. The totals are recomputed from the rows.

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
DROP TABLE expense_category_months;
--bun:split
DROP TABLE expense_months;
--bun:split
DROP TABLE expense_category_days;
--bun:split
DROP TABLE expense_days;
--bun:split
DROP TABLE spending_days;
--bun:split

CREATE TABLE expense_months (
    user_id             TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    month               TEXT NOT NULL,
    currency            TEXT NOT NULL,
    category_id         TEXT NOT NULL,
    payment_method      TEXT NOT NULL,
    expense_line_amount INTEGER NOT NULL,
    expense_lines       INTEGER NOT NULL,
    expense_amount      INTEGER NOT NULL,
    expense_count       INTEGER NOT NULL,
    PRIMARY KEY (user_id, month, currency, category_id, payment_method)
) WITHOUT ROWID;
--bun:split

CREATE TABLE spending_days (
    user_id             TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    date                TEXT NOT NULL,
    currency            TEXT NOT NULL,
    category_id         TEXT NOT NULL,
    payment_method      TEXT NOT NULL,
    credit_card_id      TEXT NOT NULL,
    amount              INTEGER NOT NULL,
    lines               INTEGER NOT NULL,
    expense_line_amount INTEGER NOT NULL DEFAULT 0,
    expense_lines       INTEGER NOT NULL DEFAULT 0,
    expense_amount      INTEGER NOT NULL DEFAULT 0,
    expense_count       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, date, currency, category_id, payment_method, credit_card_id)
) WITHOUT ROWID;
--bun:split

-- The totals of the rows already written.
INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines,
    expense_line_amount, expense_lines, expense_amount, expense_count)
SELECT x.user_id, x.date, x.currency, x.category_id, x.payment_method, x.credit_card_id,
    SUM(x.amount), SUM(x.lines), SUM(x.expense_line_amount), SUM(x.expense_lines), SUM(x.expense_amount), SUM(x.expense_count)
FROM (
    SELECT e.user_id, e.date, e.currency, COALESCE(e.category_id, '') AS category_id, e.payment_method,
        COALESCE(e.credit_card_id, '') AS credit_card_id,
        CASE WHEN e.category_id IS NULL THEN 0 ELSE e.amount END AS amount,
        CASE WHEN e.category_id IS NULL THEN 0 ELSE 1 END AS lines,
        CASE WHEN e.category_id IS NULL THEN 0 ELSE e.amount END AS expense_line_amount,
        CASE WHEN e.category_id IS NULL THEN 0 ELSE 1 END AS expense_lines,
        e.amount AS expense_amount, 1 AS expense_count
    FROM expenses AS e WHERE e.status = 'active'
    UNION ALL
    SELECT e.user_id, e.date, e.currency, s.category_id, e.payment_method, COALESCE(e.credit_card_id, ''),
        s.amount, 1, s.amount, 1, 0, 0
    FROM expense_splits AS s JOIN expenses AS e ON e.id = s.expense_id WHERE e.status = 'active'
    UNION ALL
    SELECT l.user_id, l.date, l.currency, l.category_id, 'Credit Card', l.credit_card_id, l.amount, 1, 0, 0, 0, 0
    FROM card_spending_lines AS l WHERE l.category_id IS NOT NULL
    UNION ALL
    SELECT p.user_id, p.date, ln.currency, c.id, '', '', p.interest_part, 1, 0, 0, 0, 0
    FROM loan_payments AS p
    JOIN loans AS ln ON ln.id = p.loan_id
    JOIN categories AS c ON c.user_id = p.user_id AND c.is_system AND c.name_key = 'loan interest'
    WHERE p.interest_part > 0
) AS x
GROUP BY x.user_id, x.date, x.currency, x.category_id, x.payment_method, x.credit_card_id;
--bun:split

INSERT INTO expense_months (user_id, month, currency, category_id, payment_method, expense_line_amount, expense_lines,
    expense_amount, expense_count)
SELECT user_id, substr(date, 1, 7), currency, category_id, payment_method,
    SUM(expense_line_amount), SUM(expense_lines), SUM(expense_amount), SUM(expense_count)
FROM spending_days GROUP BY 1, 2, 3, 4, 5
HAVING SUM(expense_lines) <> 0 OR SUM(expense_line_amount) <> 0 OR SUM(expense_count) <> 0 OR SUM(expense_amount) <> 0;
--bun:split

-- A day row's expense sums move its month's row by as much (an upsert that
-- updates a day row fires the update trigger). Card and loan lines change
-- amount and lines only and leave the months alone.
CREATE TRIGGER expense_months_day_insert AFTER INSERT ON spending_days
WHEN NEW.expense_lines <> 0 OR NEW.expense_line_amount <> 0 OR NEW.expense_count <> 0 OR NEW.expense_amount <> 0
BEGIN
    INSERT INTO expense_months (user_id, month, currency, category_id, payment_method, expense_line_amount, expense_lines,
        expense_amount, expense_count)
    VALUES (NEW.user_id, substr(NEW.date, 1, 7), NEW.currency, NEW.category_id, NEW.payment_method,
        NEW.expense_line_amount, NEW.expense_lines, NEW.expense_amount, NEW.expense_count)
    ON CONFLICT (user_id, month, currency, category_id, payment_method) DO UPDATE SET
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines,
        expense_amount = expense_amount + excluded.expense_amount, expense_count = expense_count + excluded.expense_count;
END;
--bun:split
CREATE TRIGGER expense_months_day_update AFTER UPDATE OF expense_line_amount, expense_lines, expense_amount, expense_count ON spending_days
WHEN OLD.expense_lines <> NEW.expense_lines OR OLD.expense_line_amount <> NEW.expense_line_amount
    OR OLD.expense_count <> NEW.expense_count OR OLD.expense_amount <> NEW.expense_amount
BEGIN
    INSERT INTO expense_months (user_id, month, currency, category_id, payment_method, expense_line_amount, expense_lines,
        expense_amount, expense_count)
    VALUES (NEW.user_id, substr(NEW.date, 1, 7), NEW.currency, NEW.category_id, NEW.payment_method,
        NEW.expense_line_amount - OLD.expense_line_amount, NEW.expense_lines - OLD.expense_lines,
        NEW.expense_amount - OLD.expense_amount, NEW.expense_count - OLD.expense_count)
    ON CONFLICT (user_id, month, currency, category_id, payment_method) DO UPDATE SET
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines,
        expense_amount = expense_amount + excluded.expense_amount, expense_count = expense_count + excluded.expense_count;
END;
--bun:split
CREATE TRIGGER expense_months_day_delete AFTER DELETE ON spending_days
BEGIN
    UPDATE expense_months SET expense_line_amount = expense_line_amount - OLD.expense_line_amount,
        expense_lines = expense_lines - OLD.expense_lines, expense_amount = expense_amount - OLD.expense_amount,
        expense_count = expense_count - OLD.expense_count
    WHERE user_id = OLD.user_id AND month = substr(OLD.date, 1, 7) AND currency = OLD.currency
        AND category_id = OLD.category_id AND payment_method = OLD.payment_method;
END;
--bun:split

-- An expense adds its count to its row, and its line too when it has a
-- category; a split one's parts add their lines through the split triggers.
CREATE TRIGGER spending_days_expense_insert AFTER INSERT ON expenses
WHEN NEW.status = 'active'
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines,
        expense_line_amount, expense_lines, expense_amount, expense_count)
    SELECT NEW.user_id, NEW.date, NEW.currency, COALESCE(NEW.category_id, ''), NEW.payment_method, COALESCE(NEW.credit_card_id, ''),
        l.amount, l.n, l.amount, l.n, NEW.amount, 1
    FROM (SELECT CASE WHEN NEW.category_id IS NULL THEN 0 ELSE NEW.amount END AS amount,
        CASE WHEN NEW.category_id IS NULL THEN 0 ELSE 1 END AS n) AS l
    WHERE true
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id) DO UPDATE SET
        amount = amount + excluded.amount, lines = lines + excluded.lines,
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines,
        expense_amount = expense_amount + excluded.expense_amount, expense_count = expense_count + excluded.expense_count;
END;
--bun:split
CREATE TRIGGER spending_days_expense_update AFTER UPDATE OF status, amount, date, currency, category_id, payment_method, credit_card_id ON expenses
WHEN OLD.status IS NOT NEW.status OR OLD.amount IS NOT NEW.amount OR OLD.date IS NOT NEW.date
    OR OLD.currency IS NOT NEW.currency OR OLD.category_id IS NOT NEW.category_id
    OR OLD.payment_method IS NOT NEW.payment_method OR OLD.credit_card_id IS NOT NEW.credit_card_id
BEGIN
    -- What the expense counted before: its row, and its parts' rows.
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines,
        expense_line_amount, expense_lines, expense_amount, expense_count)
    SELECT OLD.user_id, OLD.date, OLD.currency, COALESCE(OLD.category_id, ''), OLD.payment_method, COALESCE(OLD.credit_card_id, ''),
        -l.amount, -l.n, -l.amount, -l.n, -OLD.amount, -1
    FROM (SELECT CASE WHEN OLD.category_id IS NULL THEN 0 ELSE OLD.amount END AS amount,
        CASE WHEN OLD.category_id IS NULL THEN 0 ELSE 1 END AS n) AS l
    WHERE OLD.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id) DO UPDATE SET
        amount = amount + excluded.amount, lines = lines + excluded.lines,
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines,
        expense_amount = expense_amount + excluded.expense_amount, expense_count = expense_count + excluded.expense_count;
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines,
        expense_line_amount, expense_lines)
    SELECT OLD.user_id, OLD.date, OLD.currency, s.category_id, OLD.payment_method, COALESCE(OLD.credit_card_id, ''),
        -s.amount, -1, -s.amount, -1
    FROM expense_splits AS s WHERE s.expense_id = OLD.id AND OLD.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id) DO UPDATE SET
        amount = amount + excluded.amount, lines = lines + excluded.lines,
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines;
    -- What it counts now.
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines,
        expense_line_amount, expense_lines, expense_amount, expense_count)
    SELECT NEW.user_id, NEW.date, NEW.currency, COALESCE(NEW.category_id, ''), NEW.payment_method, COALESCE(NEW.credit_card_id, ''),
        l.amount, l.n, l.amount, l.n, NEW.amount, 1
    FROM (SELECT CASE WHEN NEW.category_id IS NULL THEN 0 ELSE NEW.amount END AS amount,
        CASE WHEN NEW.category_id IS NULL THEN 0 ELSE 1 END AS n) AS l
    WHERE NEW.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id) DO UPDATE SET
        amount = amount + excluded.amount, lines = lines + excluded.lines,
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines,
        expense_amount = expense_amount + excluded.expense_amount, expense_count = expense_count + excluded.expense_count;
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines,
        expense_line_amount, expense_lines)
    SELECT NEW.user_id, NEW.date, NEW.currency, s.category_id, NEW.payment_method, COALESCE(NEW.credit_card_id, ''),
        s.amount, 1, s.amount, 1
    FROM expense_splits AS s WHERE s.expense_id = NEW.id AND NEW.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id) DO UPDATE SET
        amount = amount + excluded.amount, lines = lines + excluded.lines,
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines;
END;
--bun:split
-- The parts go first (their triggers take their lines off while the
-- expense is still there to say where), then the expense's own row.
CREATE TRIGGER spending_days_expense_delete BEFORE DELETE ON expenses
BEGIN
    DELETE FROM expense_splits WHERE expense_id = OLD.id;
    UPDATE spending_days SET
        amount = amount - CASE WHEN OLD.category_id IS NULL THEN 0 ELSE OLD.amount END,
        lines = lines - CASE WHEN OLD.category_id IS NULL THEN 0 ELSE 1 END,
        expense_line_amount = expense_line_amount - CASE WHEN OLD.category_id IS NULL THEN 0 ELSE OLD.amount END,
        expense_lines = expense_lines - CASE WHEN OLD.category_id IS NULL THEN 0 ELSE 1 END,
        expense_amount = expense_amount - OLD.amount, expense_count = expense_count - 1
    WHERE OLD.status = 'active' AND user_id = OLD.user_id AND date = OLD.date AND currency = OLD.currency
        AND category_id = COALESCE(OLD.category_id, '') AND payment_method = OLD.payment_method
        AND credit_card_id = COALESCE(OLD.credit_card_id, '');
END;
--bun:split
CREATE TRIGGER spending_days_split_insert AFTER INSERT ON expense_splits
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines,
        expense_line_amount, expense_lines)
    SELECT e.user_id, e.date, e.currency, NEW.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), NEW.amount, 1, NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id) DO UPDATE SET
        amount = amount + excluded.amount, lines = lines + excluded.lines,
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines;
END;
--bun:split
CREATE TRIGGER spending_days_split_delete AFTER DELETE ON expense_splits
BEGIN
    UPDATE spending_days SET amount = amount - OLD.amount, lines = lines - 1,
        expense_line_amount = expense_line_amount - OLD.amount, expense_lines = expense_lines - 1
    WHERE (user_id, date, currency, category_id, payment_method, credit_card_id) IN (
        SELECT e.user_id, e.date, e.currency, OLD.category_id, e.payment_method, COALESCE(e.credit_card_id, '')
        FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active');
END;
--bun:split
CREATE TRIGGER spending_days_split_update AFTER UPDATE OF amount, category_id, expense_id ON expense_splits
BEGIN
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines,
        expense_line_amount, expense_lines)
    SELECT e.user_id, e.date, e.currency, OLD.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), -OLD.amount, -1, -OLD.amount, -1
    FROM expenses AS e WHERE e.id = OLD.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id) DO UPDATE SET
        amount = amount + excluded.amount, lines = lines + excluded.lines,
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines;
    INSERT INTO spending_days (user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines,
        expense_line_amount, expense_lines)
    SELECT e.user_id, e.date, e.currency, NEW.category_id, e.payment_method, COALESCE(e.credit_card_id, ''), NEW.amount, 1, NEW.amount, 1
    FROM expenses AS e WHERE e.id = NEW.expense_id AND e.status = 'active'
    ON CONFLICT (user_id, date, currency, category_id, payment_method, credit_card_id) DO UPDATE SET
        amount = amount + excluded.amount, lines = lines + excluded.lines,
        expense_line_amount = expense_line_amount + excluded.expense_line_amount, expense_lines = expense_lines + excluded.expense_lines;
END;
--bun:split

-- The activity entry every write appends had three index entries besides
-- its row: by (user, at) for the list, by (user, kind, at) for the kind
-- filter and by (actor, at) for the actor filters. One index now serves
-- all three: (user, at, seq) is the list's order (newest first by at, then
-- seq), and the kind and actor beside it let a filter skip the entries of
-- other kinds or actors from the index alone, reading the rows of the page
-- only. A filtered list walks the user's entries in order as the
-- unfiltered one does, and its count reads the same entries the
-- unfiltered count reads, so a filter costs what the plain list costs;
-- each write saves two B-tree pages. (Actors are never deleted, so the
-- foreign key from activity to activity_actors needs no index of its own.)
DROP INDEX activity_kind;
--bun:split
DROP INDEX activity_actor;
--bun:split
DROP INDEX activity_user;
--bun:split
CREATE INDEX activity_user ON activity (user_seq, at, seq, kind, actor);
--bun:split

-- expense_counts by currency: the count and total of the user's expenses
-- of each status and currency, recomputed from the rows.
DROP TRIGGER expense_counts_insert;
--bun:split
DROP TRIGGER expense_counts_status;
--bun:split
DROP TRIGGER expense_counts_delete;
--bun:split
DROP TABLE expense_counts;
--bun:split
CREATE TABLE expense_counts (
    user_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status   TEXT NOT NULL,
    currency TEXT NOT NULL,
    n        INTEGER NOT NULL,
    total    INTEGER NOT NULL,
    PRIMARY KEY (user_id, status, currency)
) WITHOUT ROWID;
--bun:split
INSERT INTO expense_counts (user_id, status, currency, n, total)
SELECT user_id, status, currency, COUNT(*), SUM(amount) FROM expenses GROUP BY user_id, status, currency;
--bun:split
CREATE TRIGGER expense_counts_insert AFTER INSERT ON expenses
BEGIN
    INSERT INTO expense_counts (user_id, status, currency, n, total) VALUES (NEW.user_id, NEW.status, NEW.currency, 1, NEW.amount)
    ON CONFLICT (user_id, status, currency) DO UPDATE SET n = n + 1, total = total + excluded.total;
END;
--bun:split
CREATE TRIGGER expense_counts_status AFTER UPDATE OF status, amount, currency ON expenses
WHEN OLD.status <> NEW.status OR OLD.amount <> NEW.amount OR OLD.currency <> NEW.currency
BEGIN
    UPDATE expense_counts SET n = n - 1, total = total - OLD.amount
    WHERE user_id = OLD.user_id AND status = OLD.status AND currency = OLD.currency;
    INSERT INTO expense_counts (user_id, status, currency, n, total) VALUES (NEW.user_id, NEW.status, NEW.currency, 1, NEW.amount)
    ON CONFLICT (user_id, status, currency) DO UPDATE SET n = n + 1, total = total + excluded.total;
END;
--bun:split
CREATE TRIGGER expense_counts_delete AFTER DELETE ON expenses
BEGIN
    UPDATE expense_counts SET n = n - 1, total = total - OLD.amount
    WHERE user_id = OLD.user_id AND status = OLD.status AND currency = OLD.currency;
END;

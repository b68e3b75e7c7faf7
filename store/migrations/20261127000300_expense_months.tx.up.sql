-- Month totals of the daily expense totals, kept by triggers on the day
-- tables in the same transaction. An expense summary over a long range reads
-- its whole months here (one row per month and method or category) and only
-- the partial months at its ends from the day tables: five years are about
-- 60 rows per method or category instead of about 1,800.
-- A month is YYYY-MM, the first seven characters of its days' dates.
CREATE TABLE expense_months (
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    month          TEXT NOT NULL,
    payment_method TEXT NOT NULL,
    amount         INTEGER NOT NULL,
    count          INTEGER NOT NULL,
    PRIMARY KEY (user_id, month, payment_method)
) WITHOUT ROWID;
--bun:split
CREATE TABLE expense_category_months (
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    month       TEXT NOT NULL,
    category_id TEXT NOT NULL,
    amount      INTEGER NOT NULL,
    count       INTEGER NOT NULL,
    PRIMARY KEY (user_id, month, category_id)
) WITHOUT ROWID;
--bun:split

-- The totals of the days already kept.
INSERT INTO expense_months (user_id, month, payment_method, amount, count)
SELECT user_id, substr(date, 1, 7), payment_method, SUM(amount), SUM(count)
FROM expense_days GROUP BY user_id, substr(date, 1, 7), payment_method;
--bun:split
INSERT INTO expense_category_months (user_id, month, category_id, amount, count)
SELECT user_id, substr(date, 1, 7), category_id, SUM(amount), SUM(count)
FROM expense_category_days GROUP BY user_id, substr(date, 1, 7), category_id;
--bun:split

-- A day row is inserted once and then only moves by its amount and count
-- (its key never changes); it is deleted only with its user.
CREATE TRIGGER expense_months_day_insert AFTER INSERT ON expense_days
BEGIN
    INSERT INTO expense_months (user_id, month, payment_method, amount, count)
    VALUES (NEW.user_id, substr(NEW.date, 1, 7), NEW.payment_method, NEW.amount, NEW.count)
    ON CONFLICT (user_id, month, payment_method) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
CREATE TRIGGER expense_months_day_update AFTER UPDATE OF amount, count ON expense_days
BEGIN
    UPDATE expense_months SET amount = amount + NEW.amount - OLD.amount, count = count + NEW.count - OLD.count
    WHERE user_id = NEW.user_id AND month = substr(NEW.date, 1, 7) AND payment_method = NEW.payment_method;
END;
--bun:split
CREATE TRIGGER expense_months_day_delete AFTER DELETE ON expense_days
BEGIN
    UPDATE expense_months SET amount = amount - OLD.amount, count = count - OLD.count
    WHERE user_id = OLD.user_id AND month = substr(OLD.date, 1, 7) AND payment_method = OLD.payment_method;
END;
--bun:split
CREATE TRIGGER expense_category_months_day_insert AFTER INSERT ON expense_category_days
BEGIN
    INSERT INTO expense_category_months (user_id, month, category_id, amount, count)
    VALUES (NEW.user_id, substr(NEW.date, 1, 7), NEW.category_id, NEW.amount, NEW.count)
    ON CONFLICT (user_id, month, category_id) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count;
END;
--bun:split
CREATE TRIGGER expense_category_months_day_update AFTER UPDATE OF amount, count ON expense_category_days
BEGIN
    UPDATE expense_category_months SET amount = amount + NEW.amount - OLD.amount, count = count + NEW.count - OLD.count
    WHERE user_id = NEW.user_id AND month = substr(NEW.date, 1, 7) AND category_id = NEW.category_id;
END;
--bun:split
CREATE TRIGGER expense_category_months_day_delete AFTER DELETE ON expense_category_days
BEGIN
    UPDATE expense_category_months SET amount = amount - OLD.amount, count = count - OLD.count
    WHERE user_id = OLD.user_id AND month = substr(OLD.date, 1, 7) AND category_id = OLD.category_id;
END;

-- The amount of each user's expenses by status beside their count, kept by
-- the same triggers: an expense list filtered by status alone answers its
-- summary (count and total) from here, where a SUM would read a million
-- index entries.
ALTER TABLE expense_counts ADD COLUMN total INTEGER NOT NULL DEFAULT 0;
--bun:split
UPDATE expense_counts SET total = coalesce((SELECT sum(e.amount) FROM expenses AS e
    WHERE e.user_id = expense_counts.user_id AND e.status = expense_counts.status), 0);
--bun:split
DROP TRIGGER expense_counts_insert;
--bun:split
DROP TRIGGER expense_counts_status;
--bun:split
DROP TRIGGER expense_counts_delete;
--bun:split
CREATE TRIGGER expense_counts_insert AFTER INSERT ON expenses
BEGIN
    INSERT INTO expense_counts (user_id, status, n, total) VALUES (NEW.user_id, NEW.status, 1, NEW.amount)
    ON CONFLICT (user_id, status) DO UPDATE SET n = n + 1, total = total + NEW.amount;
END;
--bun:split
-- One trigger (its name kept from the count alone) for a status change and
-- an amount change, so an update that
-- does both (or either) moves the old amount out and the new one in.
CREATE TRIGGER expense_counts_status AFTER UPDATE OF status, amount ON expenses
WHEN OLD.status <> NEW.status OR OLD.amount <> NEW.amount
BEGIN
    UPDATE expense_counts SET n = n - 1, total = total - OLD.amount WHERE user_id = OLD.user_id AND status = OLD.status;
    INSERT INTO expense_counts (user_id, status, n, total) VALUES (NEW.user_id, NEW.status, 1, NEW.amount)
    ON CONFLICT (user_id, status) DO UPDATE SET n = n + 1, total = total + NEW.amount;
END;
--bun:split
CREATE TRIGGER expense_counts_delete AFTER DELETE ON expenses
BEGIN
    UPDATE expense_counts SET n = n - 1, total = total - OLD.amount WHERE user_id = OLD.user_id AND status = OLD.status;
END;
--bun:split
-- The date indexes carry the amount after their keys, so a list's summary
-- over a date range (count and sum) reads index entries alone, as its count
-- did, and the page still reads them in (date, id) order.
DROP INDEX expenses_active_date;
--bun:split
CREATE INDEX expenses_active_date ON expenses (user_seq, date, id, amount) WHERE status = 'active';
--bun:split
DROP INDEX expenses_voided_date;
--bun:split
CREATE INDEX expenses_voided_date ON expenses (user_seq, date, id, amount) WHERE status = 'voided';

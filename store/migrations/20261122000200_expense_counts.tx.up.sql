-- Per-user expense counts by status, kept by triggers inside the writing
-- transaction. An unfiltered GET /expenses reads total_items from here:
-- COUNT(*) visits every matching index entry, hundreds of milliseconds at a
-- million rows. Triggers keep the count right whichever code path writes.
CREATE TABLE expense_counts (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status  TEXT NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (user_id, status)
) WITHOUT ROWID;
--bun:split
INSERT INTO expense_counts (user_id, status, n)
SELECT user_id, status, count(*) FROM expenses GROUP BY user_id, status;
--bun:split
CREATE TRIGGER expense_counts_insert AFTER INSERT ON expenses
BEGIN
    INSERT INTO expense_counts (user_id, status, n) VALUES (NEW.user_id, NEW.status, 1)
    ON CONFLICT (user_id, status) DO UPDATE SET n = n + 1;
END;
--bun:split
CREATE TRIGGER expense_counts_status AFTER UPDATE OF status ON expenses
WHEN OLD.status <> NEW.status
BEGIN
    UPDATE expense_counts SET n = n - 1 WHERE user_id = OLD.user_id AND status = OLD.status;
    INSERT INTO expense_counts (user_id, status, n) VALUES (NEW.user_id, NEW.status, 1)
    ON CONFLICT (user_id, status) DO UPDATE SET n = n + 1;
END;
--bun:split
CREATE TRIGGER expense_counts_delete AFTER DELETE ON expenses
BEGIN
    UPDATE expense_counts SET n = n - 1 WHERE user_id = OLD.user_id AND status = OLD.status;
END;

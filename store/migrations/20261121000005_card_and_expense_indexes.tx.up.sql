-- Indexes for credit cards, card transactions and expenses, checked with
-- EXPLAIN QUERY PLAN against the queries in store/cards.go and store/expenses.go.

-- Card figures (§4.3) sum one card's unbilled and billed rows by type: an
-- index-only scan.
CREATE INDEX card_transactions_figures ON card_transactions (credit_card_id, status, type, amount);
--bun:split

-- GET /expenses sorted by created_at or description reads a page in index order.
CREATE INDEX expenses_user_created ON expenses (user_id, status, created_at, id);
--bun:split
CREATE INDEX expenses_user_description ON expenses (user_id, status, description COLLATE NOCASE, id);
--bun:split

-- The category filter with a date range: the range scan covers the sort
-- keys, so sorting by amount or date touches only the rows of the page.
DROP INDEX expenses_user_category_date;
--bun:split
CREATE INDEX expenses_user_category ON expenses (user_id, status, category_id, date, amount, id);
--bun:split

-- The cardId and accountId filters. Partial: Cash expenses add nothing to them.
CREATE INDEX expenses_card ON expenses (credit_card_id, status, date, id) WHERE credit_card_id IS NOT NULL;
--bun:split
CREATE INDEX expenses_account ON expenses (account_id, status, date, id) WHERE account_id IS NOT NULL;

-- Running balances on account lines (domain.md "Running balances on account
-- lines") sum the posted lines after a line in (date, created_at, id) order;
-- this index holds those keys and the amounts, so the sum reads the index alone.
CREATE INDEX account_transactions_running ON account_transactions (account_id, status, date, created_at, id, type, amount);

-- Money in more than one currency (docs/domain.md "Money in more than one
-- currency"). Every record that holds money names its currency; amounts stay
-- whole hundredths of it. Existing rows take their user's currency (the
-- reporting currency, default PHP), so no amount changes and every figure
-- reads as before.
--
-- SQLite can add a NOT NULL column only with a default, and cannot add a CHECK
-- that existing rows fail, so each column starts as '' and is filled below; a
-- trigger per table then refuses a row written without its currency, so a
-- write path that forgets it fails loudly instead of storing ''.
ALTER TABLE accounts ADD COLUMN currency TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE credit_cards ADD COLUMN currency TEXT NOT NULL DEFAULT '';
--bun:split
-- The bank's foreign transaction fee: an exact decimal percent, as minimum_due_percent.
ALTER TABLE credit_cards ADD COLUMN foreign_fee_percent TEXT NOT NULL DEFAULT '0';
--bun:split
ALTER TABLE loans ADD COLUMN currency TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE bill_templates ADD COLUMN currency TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE income_templates ADD COLUMN currency TEXT NOT NULL DEFAULT '';
--bun:split
-- The currency the expense's money moved in: the account's for Account Debit,
-- the card's (the billed amount) for Credit Card, the one named for Cash. Kept
-- on the row so summaries group by it without a join.
ALTER TABLE expenses ADD COLUMN currency TEXT NOT NULL DEFAULT '';
--bun:split
-- A purchase abroad: what was paid, in hundredths of original_currency. Both or neither.
ALTER TABLE expenses ADD COLUMN original_amount INTEGER;
--bun:split
ALTER TABLE expenses ADD COLUMN original_currency TEXT;
--bun:split
ALTER TABLE card_transactions ADD COLUMN original_amount INTEGER;
--bun:split
ALTER TABLE card_transactions ADD COLUMN original_currency TEXT;
--bun:split
ALTER TABLE income ADD COLUMN currency TEXT NOT NULL DEFAULT '';
--bun:split
-- What arrived at the destination, in its currency; NULL on the transfers
-- from before currencies, which moved amount on both sides.
ALTER TABLE transfers ADD COLUMN to_amount INTEGER;
--bun:split
UPDATE accounts SET currency = COALESCE((SELECT s.currency FROM user_settings s WHERE s.user_id = accounts.user_id), 'PHP');
--bun:split
UPDATE credit_cards SET currency = COALESCE((SELECT s.currency FROM user_settings s WHERE s.user_id = credit_cards.user_id), 'PHP');
--bun:split
UPDATE loans SET currency = COALESCE((SELECT s.currency FROM user_settings s WHERE s.user_id = loans.user_id), 'PHP');
--bun:split
UPDATE bill_templates SET currency = COALESCE((SELECT s.currency FROM user_settings s WHERE s.user_id = bill_templates.user_id), 'PHP');
--bun:split
UPDATE income_templates SET currency = COALESCE((SELECT s.currency FROM user_settings s WHERE s.user_id = income_templates.user_id), 'PHP');
--bun:split
UPDATE expenses SET currency = COALESCE((SELECT s.currency FROM user_settings s WHERE s.user_id = expenses.user_id), 'PHP');
--bun:split
UPDATE income SET currency = COALESCE((SELECT s.currency FROM user_settings s WHERE s.user_id = income.user_id), 'PHP');
--bun:split
UPDATE transfers SET to_amount = amount;
--bun:split
CREATE TRIGGER accounts_currency_required BEFORE INSERT ON accounts WHEN NEW.currency = ''
BEGIN SELECT RAISE(ABORT, 'accounts.currency is required'); END;
--bun:split
CREATE TRIGGER credit_cards_currency_required BEFORE INSERT ON credit_cards WHEN NEW.currency = ''
BEGIN SELECT RAISE(ABORT, 'credit_cards.currency is required'); END;
--bun:split
CREATE TRIGGER loans_currency_required BEFORE INSERT ON loans WHEN NEW.currency = ''
BEGIN SELECT RAISE(ABORT, 'loans.currency is required'); END;
--bun:split
CREATE TRIGGER bill_templates_currency_required BEFORE INSERT ON bill_templates WHEN NEW.currency = ''
BEGIN SELECT RAISE(ABORT, 'bill_templates.currency is required'); END;
--bun:split
CREATE TRIGGER income_templates_currency_required BEFORE INSERT ON income_templates WHEN NEW.currency = ''
BEGIN SELECT RAISE(ABORT, 'income_templates.currency is required'); END;
--bun:split
CREATE TRIGGER expenses_currency_required BEFORE INSERT ON expenses WHEN NEW.currency = ''
BEGIN SELECT RAISE(ABORT, 'expenses.currency is required'); END;
--bun:split
CREATE TRIGGER income_currency_required BEFORE INSERT ON income WHEN NEW.currency = ''
BEGIN SELECT RAISE(ABORT, 'income.currency is required'); END;

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// Some schema changes need a table rebuilt: SQLite cannot add a NOT NULL
// column without a default, or a table constraint such as a foreign key over
// two columns, to an existing table. A rebuild follows SQLite's documented
// procedure (https://sqlite.org/lang_altertable.html, "Making Other Kinds Of
// Table Schema Changes"): with foreign key enforcement off, so that dropping
// the old table neither cascades into the tables that reference it nor
// checks them, one transaction creates the new table, copies the rows, drops
// the old table, renames the new one, creates the new indexes and the old
// table's triggers again (from their stored SQL), and checks every foreign
// key before it commits.
// Enforcement cannot be switched inside a transaction, which is why these
// migrations are Go functions and not .tx.up.sql files.

// rebuild is one table rebuild, run as the migration named name.
type rebuild struct {
	name, comment string
	table         string
	// create creates the new table under the name table+"_new"; fill copies
	// the old table's rows into it.
	create, fill string
	// indexes are the new table's indexes. The old table's triggers are
	// created again as they were.
	indexes []string
}

// expenseColumnsV1 are the columns of expenses as the rebuilds below knew
// them; the columns added since (see expenseColumns) come after them.
const expenseColumnsV1 = `id, user_id, amount, date, description, category_id, payment_method, account_id, credit_card_id,
	notes, status, source, bill_payment_id, account_transaction_id, card_transaction_id, voided_at, created_at, updated_at`

// userSeqOf is the user_seq of the user whose id is the argument.
const userSeqOf = "(SELECT seq FROM users WHERE id = ?)"

// rebuilds are the migrations that rebuild a table, after the .sql ones of
// earlier names.
var rebuilds = append([]rebuild{{
	// The user indexes of expenses lead with user_seq, a small integer,
	// instead of the 36-character user_id; the foreign key from (user_id,
	// user_seq) to the user's (id, seq), with seq unique, makes a row's
	// user_seq name its own user and no other. And they are partial by
	// status (expenseUserIndexes).
	//
	// Expenses stay a rowid table. As a WITHOUT ROWID table keyed by id it
	// took 64 fewer bytes per expense (no index from id to row, no rowid in
	// the other indexes), but its B-tree holds whole rows of about 250 bytes
	// in its interior pages too, so it is several levels deeper, and every
	// read of rows found through an index became about three times slower:
	// a text search over a million expenses took 4.8 s instead of 1.5 s.
	name: "20261128000100", comment: "expenses_user_seq", table: "expenses",
	create: expensesUserSeqTable,
	fill: `INSERT INTO expenses_new (` + expenseColumnsV1 + `, user_seq)
SELECT ` + expenseColumnsV1 + `, (SELECT u.seq FROM users AS u WHERE u.id = expenses.user_id) FROM expenses`,
	indexes: expenseIndexes(),
}, {
	// An expense's source gains agent: created through the MCP endpoint
	// (docs/domain.md "Activity: who did what"). SQLite cannot change a
	// CHECK constraint in place; the table and its indexes are as before.
	name: "20261129002310", comment: "expenses_source_agent", table: "expenses",
	create: strings.Replace(expensesUserSeqTable, "CHECK (source IN ('manual', 'bill_payment'))",
		"CHECK (source IN ('manual', 'bill_payment', 'agent'))", 1),
	fill:    `INSERT INTO expenses_new (` + expenseColumnsV1 + `, user_seq) SELECT ` + expenseColumnsV1 + `, user_seq FROM expenses`,
	indexes: expenseIndexes(),
}, {
	// An expense's source gains import: created by committing an imported
	// file (docs/domain.md "Importing a file").
	name: "20261130000110", comment: "expenses_source_import", table: "expenses",
	create: strings.Replace(expensesUserSeqTable, "CHECK (source IN ('manual', 'bill_payment'))",
		"CHECK (source IN ('manual', 'bill_payment', 'agent', 'import'))", 1),
	fill:    `INSERT INTO expenses_new (` + expenseColumnsV1 + `, user_seq) SELECT ` + expenseColumnsV1 + `, user_seq FROM expenses`,
	indexes: expenseIndexes(),
}}, append(append(transferRebuilds, recurringRebuilds...), activityKindsRebuild, activityKindExchangeRate)...)

// expensesUserSeqTable is expenses as the rebuild of 20261128000100 made it.
const expensesUserSeqTable = `CREATE TABLE expenses_new (
    id                     TEXT PRIMARY KEY,
    user_id                TEXT NOT NULL,
    user_seq               INTEGER NOT NULL,
    amount                 INTEGER NOT NULL CHECK (amount > 0),
    date                   TEXT NOT NULL,
    description            TEXT NOT NULL,
    category_id            TEXT REFERENCES categories (id),    -- NULL while split
    payment_method         TEXT NOT NULL CHECK (payment_method IN ('Cash', 'Account Debit', 'Credit Card')),
    account_id             TEXT REFERENCES accounts (id),
    credit_card_id         TEXT REFERENCES credit_cards (id),
    notes                  TEXT,
    status                 TEXT NOT NULL CHECK (status IN ('active', 'voided')),
    source                 TEXT NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'bill_payment')),
    bill_payment_id        TEXT,
    account_transaction_id TEXT,
    card_transaction_id    TEXT,
    voided_at              TIMESTAMP,
    created_at             TIMESTAMP NOT NULL,
    updated_at             TIMESTAMP NOT NULL,
    FOREIGN KEY (user_id, user_seq) REFERENCES users (id, seq) ON DELETE CASCADE
)`

// expenseIndexes are the indexes of expenses: the user's, and the cardId and
// accountId filters (partial: Cash expenses add nothing to them).
func expenseIndexes() []string {
	return append(expenseUserIndexes(),
		"CREATE INDEX expenses_card ON expenses (credit_card_id, status, date, id) WHERE credit_card_id IS NOT NULL",
		"CREATE INDEX expenses_account ON expenses (account_id, status, date, id) WHERE account_id IS NOT NULL")
}

// expenseUserIndexes are the indexes of a user's expenses, one set per
// status: each is partial, so no entry holds the status, and a list (which
// always names one status) reads the set of its status. By sort key:
//   - date, amount, created_at and description: the list sorts of GET
//     /expenses (domain.md §1.5), a page read in index order; created_at also
//     gives the newest expenses (RecentExpenseChoices);
//   - date also holds the amount, so a list's summary over a date range
//     reads index entries alone;
//   - category: the category filter with a date range; the range scan holds
//     the sort keys, so sorting by amount or date touches only the page's rows.
func expenseUserIndexes() []string {
	var out []string
	for _, status := range []string{"active", "voided"} {
		for _, ix := range []struct{ name, keys string }{
			{"date", "date, id, amount"}, // the amount for a list's summary (20261208000100)
			{"amount", "amount, id"},
			{"created", "created_at, id"},
			{"description", "description COLLATE NOCASE, id"},
			{"category", "category_id, date, amount, id"},
		} {
			out = append(out, fmt.Sprintf("CREATE INDEX expenses_%s_%s ON expenses (user_seq, %s) WHERE status = '%[1]s'",
				status, ix.name, ix.keys))
		}
	}
	return out
}

// migration is r as a migration of its own.
func (r rebuild) migration() migrate.Migration {
	return migrate.Migration{Name: r.name, Comment: r.comment,
		Up: func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error { return r.run(ctx, m.DB()) }}
}

// run rebuilds the table on one connection of db.
func (r rebuild) run(ctx context.Context, db *bun.DB) (err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, conn.Close()) }()
	// legacy_alter_table makes the rename rename the table alone: by
	// default SQLite also checks every trigger of the schema, and those of
	// other tables that read the old table fail while it is gone.
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON"); err != nil {
		return err
	}
	defer func() {
		_, on := conn.ExecContext(ctx, "PRAGMA legacy_alter_table = OFF; PRAGMA foreign_keys = ON")
		err = errors.Join(err, on)
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := r.steps(ctx, tx); err != nil {
		return errors.Join(fmt.Errorf("rebuild %s: %w", r.table, err), tx.Rollback())
	}
	return tx.Commit()
}

func (r rebuild) steps(ctx context.Context, tx bun.Tx) error {
	// The triggers of the table go with it; their SQL is kept to create
	// them again.
	var triggers []string
	if err := tx.NewRaw("SELECT sql FROM sqlite_schema WHERE tbl_name = ? AND type = 'trigger' ORDER BY name", r.table).
		Scan(ctx, &triggers); err != nil {
		return err
	}
	stmts := []string{r.create, r.fill, "DROP TABLE " + r.table, fmt.Sprintf("ALTER TABLE %s_new RENAME TO %[1]s", r.table)}
	stmts = append(append(stmts, r.indexes...), triggers...)
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", strings.SplitN(strings.TrimSpace(q), "\n", 2)[0], err)
		}
	}
	// foreign_key_check lists every row whose key has no parent.
	var broken []string
	if err := tx.NewRaw("SELECT DISTINCT \"table\" || ' -> ' || parent FROM pragma_foreign_key_check").Scan(ctx, &broken); err != nil {
		return err
	}
	if len(broken) > 0 {
		return fmt.Errorf("foreign keys broken: %s", strings.Join(broken, ", "))
	}
	return nil
}

// The rebuilds of transfers (docs/domain.md "Transfers"): an account line's
// source, an expense's source (a transfer's fee) and an activity entry's
// kind each gain transfer. Tables, indexes and triggers are otherwise as
// before.
var transferRebuilds = []rebuild{{
	name: "20261202000110", comment: "account_transactions_source_transfer", table: "account_transactions",
	create: `CREATE TABLE account_transactions_new (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    type        TEXT NOT NULL CHECK (type IN ('debit', 'credit')),
    amount      INTEGER NOT NULL CHECK (amount > 0),
    date        TEXT NOT NULL,
    description TEXT,
    source      TEXT NOT NULL CHECK (source IN ('manual', 'adjustment', 'expense', 'income', 'soa_payment', 'loan_payment', 'transfer')),
    source_id   TEXT,
    status      TEXT NOT NULL CHECK (status IN ('posted', 'voided')),
    voided_at   TIMESTAMP,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
)`,
	fill: `INSERT INTO account_transactions_new SELECT * FROM account_transactions`,
	indexes: []string{
		"CREATE INDEX account_transactions_account ON account_transactions (account_id, status, date, id)",
		"CREATE INDEX account_transactions_user ON account_transactions (user_id, status, date, id)",
	},
}, {
	name: "20261202000120", comment: "expenses_source_transfer", table: "expenses",
	create: strings.Replace(expensesUserSeqTable, "CHECK (source IN ('manual', 'bill_payment'))",
		"CHECK (source IN ('manual', 'bill_payment', 'agent', 'import', 'transfer'))", 1),
	fill:    `INSERT INTO expenses_new (` + expenseColumnsV1 + `, user_seq) SELECT ` + expenseColumnsV1 + `, user_seq FROM expenses`,
	indexes: expenseIndexes(),
}, {
	name: "20261202000130", comment: "activity_kind_transfer", table: "activity",
	create:  activityTransferTable,
	fill:    `INSERT INTO activity_new SELECT * FROM activity`,
	indexes: activityIndexes,
}}

// activityTransferTable is activity as the rebuild of 20261202000130 made it.
const activityTransferTable = `CREATE TABLE activity_new (
    seq            INTEGER PRIMARY KEY,
    id             TEXT NOT NULL,
    user_seq       INTEGER NOT NULL REFERENCES users (seq) ON DELETE CASCADE,
    at             INTEGER NOT NULL,
    actor          INTEGER NOT NULL REFERENCES activity_actors (id) ON DELETE CASCADE,
    kind           TEXT NOT NULL CHECK (kind IN ('expense', 'income', 'account', 'account_transaction', 'category',
                                                 'credit_card', 'card_transaction', 'soa', 'soa_payment', 'installment_plan',
                                                 'bill_template', 'bill', 'bill_payment', 'loan', 'loan_instance',
                                                 'loan_payment', 'app_settings', 'budget_thresholds', 'transfer')),
    record_id      TEXT NOT NULL,
    action         TEXT NOT NULL CHECK (action IN ('created', 'updated', 'split', 'voided', 'deleted', 'archived',
                                                   'unarchived', 'paid', 'generated', 'linked', 'unlinked', 'converted',
                                                   'cancelled', 'completed')),
    summary        TEXT NOT NULL,
    amount         INTEGER,
    credit_card_id TEXT REFERENCES credit_cards (id)
)`

// activityKindsRebuild lets the activity record the writes of recurring
// income, reminders and category rules (docs/domain.md "Reconciling,
// recurring income, reminders and category rules"): an entry's kind gains
// income_template, expected_income, reminder_settings and category_rule.
// The table and its indexes are as before.
var activityKindsRebuild = rebuild{
	name: "20261212000110", comment: "activity_kinds_recurring_rules", table: "activity",
	create: strings.Replace(activityTransferTable, "'budget_thresholds', 'transfer')",
		"'budget_thresholds', 'transfer',\n                                                 "+
			"'income_template', 'expected_income', 'reminder_settings', 'category_rule')", 1),
	fill:    `INSERT INTO activity_new SELECT * FROM activity`,
	indexes: activityIndexes,
}

// activityKindExchangeRate lets the activity record a person's manual
// exchange rates (docs/domain.md "Exchange rates"): an entry's kind gains
// exchange_rate. The table and its indexes are as before.
var activityKindExchangeRate = rebuild{
	name: "20261214000110", comment: "activity_kind_exchange_rate", table: "activity",
	create: strings.Replace(activityKindsRebuild.create, "'reminder_settings', 'category_rule')",
		"'reminder_settings', 'category_rule', 'exchange_rate')", 1),
	fill:    `INSERT INTO activity_new SELECT * FROM activity`,
	indexes: activityIndexes,
}

// activityIndexes are the indexes of activity (store/activity.go): the
// user's entries, the kind filter, the actor filters and the card log.
var activityIndexes = []string{
	"CREATE INDEX activity_user ON activity (user_seq, at)",
	"CREATE INDEX activity_kind ON activity (user_seq, kind, at)",
	"CREATE INDEX activity_actor ON activity (actor, at)",
	"CREATE INDEX activity_cards ON activity (user_seq, at) WHERE credit_card_id IS NOT NULL",
	"CREATE INDEX activity_card ON activity (credit_card_id, at) WHERE credit_card_id IS NOT NULL",
}

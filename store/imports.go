package store

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type importBatchRow struct {
	bun.BaseModel `bun:"table:import_batches,alias:b"`

	ID             string        `bun:"id,pk"`
	UserID         string        `bun:"user_id"`
	Status         string        `bun:"status"`
	FileName       string        `bun:"file_name"`
	Format         string        `bun:"format"`
	Encoding       string        `bun:"encoding"`
	Currency       string        `bun:"currency"`
	TargetKind     string        `bun:"target_kind"`
	TargetID       string        `bun:"target_id"`
	TargetName     string        `bun:"target_name,scanonly"`
	ActorKind      string        `bun:"actor_kind"`
	ActorID        string        `bun:"actor_id"`
	ActorName      string        `bun:"actor_name"`
	RowCount       int           `bun:"row_count"`
	NewCount       int           `bun:"new_count"`
	DuplicateCount int           `bun:"duplicate_count"`
	ErrorCount     int           `bun:"error_count"`
	CreatedCount   int           `bun:"created_count"`
	DebitTotal     finance.Money `bun:"debit_total"`
	CreditTotal    finance.Money `bun:"credit_total"`
	DateFrom       *finance.Date `bun:"date_from"`
	DateTo         *finance.Date `bun:"date_to"`
	CreatedAt      time.Time     `bun:"created_at"`
	CommittedAt    *time.Time    `bun:"committed_at"`
	RevertedAt     *time.Time    `bun:"reverted_at"`
}

func newImportBatchRow(userID string, b finance.ImportBatch) importBatchRow {
	s := b.Summary
	return importBatchRow{ID: b.ID, UserID: userID, Status: b.Status, FileName: b.FileName, Format: b.Format,
		Encoding: b.Encoding, Currency: s.Currency, TargetKind: b.Target.Kind, TargetID: b.Target.ID,
		ActorKind: b.Actor.Kind, ActorID: b.Actor.ID, ActorName: b.Actor.Name,
		RowCount: s.Rows, NewCount: s.New, DuplicateCount: s.Duplicates, ErrorCount: s.Errors, CreatedCount: s.Created,
		DebitTotal: s.DebitTotal, CreditTotal: s.CreditTotal, DateFrom: s.DateFrom, DateTo: s.DateTo,
		CreatedAt: b.CreatedAt, CommittedAt: b.CommittedAt, RevertedAt: b.RevertedAt}
}

func (r importBatchRow) batch() finance.ImportBatch {
	return finance.ImportBatch{ID: r.ID, Status: r.Status, FileName: r.FileName, Format: r.Format, Encoding: r.Encoding,
		Target: finance.ImportTarget{Kind: r.TargetKind, ID: r.TargetID, Name: r.TargetName},
		Actor:  finance.Actor{Kind: r.ActorKind, ID: r.ActorID, Name: r.ActorName},
		Summary: finance.ImportSummary{Rows: r.RowCount, New: r.NewCount, Duplicates: r.DuplicateCount, Errors: r.ErrorCount,
			Created: r.CreatedCount, DebitTotal: r.DebitTotal, CreditTotal: r.CreditTotal, DateFrom: r.DateFrom,
			DateTo: r.DateTo, Currency: r.Currency},
		CreatedAt: r.CreatedAt, CommittedAt: r.CommittedAt, RevertedAt: r.RevertedAt}
}

type importRowRow struct {
	bun.BaseModel `bun:"table:import_rows,alias:r"`

	BatchID        string        `bun:"batch_id,pk"`
	Line           int           `bun:"line,pk"`
	Date           *finance.Date `bun:"date"`
	Amount         *finance.Money
	Direction      string
	Description    string
	Payee          *string
	BankID         *string
	Category       *string
	CategoryReason *string
	CategoryUses   int
	// The rule behind a rule's choice: its id and position at the preview.
	CategoryRuleID       *string
	CategoryRulePosition *int
	MatchKind            *string
	MatchRecordID        *string
	Action               string
	Record               string
	Note                 *string
	Error                *string
	RecordID             *string
	RowID                *string
}

func newImportRowRow(batchID string, r finance.ImportRow) importRowRow {
	out := importRowRow{BatchID: batchID, Line: r.Line, Date: r.Date, Amount: r.Amount, Direction: r.Direction,
		Description: r.Description, Payee: r.Payee, BankID: r.BankID, Category: r.Category, CategoryReason: r.CategoryReason,
		CategoryUses: r.CategoryUses, Action: r.Action, Record: r.Record, Note: r.Note, Error: r.Error,
		RecordID: r.CreatedID, RowID: r.CreatedRowID}
	if r.Match != nil {
		out.MatchKind, out.MatchRecordID = &r.Match.Kind, &r.Match.RecordID
	}
	if r.CategoryRule != nil {
		out.CategoryRuleID, out.CategoryRulePosition = &r.CategoryRule.ID, &r.CategoryRule.Position
	}
	return out
}

func (r importRowRow) row() finance.ImportRow {
	out := finance.ImportRow{Line: r.Line, Date: r.Date, Amount: r.Amount, Direction: r.Direction, Description: r.Description,
		Payee: r.Payee, BankID: r.BankID, Category: r.Category, CategoryReason: r.CategoryReason, CategoryUses: r.CategoryUses,
		Action: r.Action, Record: r.Record, Note: r.Note, Error: r.Error, CreatedID: r.RecordID, CreatedRowID: r.RowID}
	if r.MatchKind != nil {
		out.Match = &finance.ImportMatch{Kind: *r.MatchKind, RecordID: *r.MatchRecordID}
	}
	if r.CategoryRuleID != nil && r.CategoryRulePosition != nil {
		out.CategoryRule = &finance.CategoryRuleRef{ID: *r.CategoryRuleID, Position: *r.CategoryRulePosition}
	}
	return out
}

// importInsertChunk bounds the rows of one INSERT: SQLite binds at most
// 32,766 parameters, and a row has 21.
const importInsertChunk = 1000

func (l ledger) InsertImport(ctx context.Context, userID string, b finance.ImportBatch, rows []finance.ImportRow) error {
	head := newImportBatchRow(userID, b)
	if _, err := l.db.NewInsert().Model(&head).Exec(ctx); err != nil {
		return err
	}
	for start := 0; start < len(rows); start += importInsertChunk {
		part := rows[start:min(len(rows), start+importInsertChunk)]
		out := make([]importRowRow, len(part))
		for i, r := range part {
			out[i] = newImportRowRow(b.ID, r)
		}
		if _, err := l.db.NewInsert().Model(&out).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// selectImports reads batches with their target's name.
func (l ledger) selectImports(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ColumnExpr("b.*").
		ColumnExpr(`COALESCE((SELECT a.name FROM accounts AS a WHERE a.id = b.target_id),
			(SELECT c.name FROM credit_cards AS c WHERE c.id = b.target_id), '') AS target_name`)
}

func (l ledger) Import(ctx context.Context, userID, id string) (finance.ImportBatch, error) {
	var row importBatchRow
	err := l.selectImports(&row).Where("b.id = ? AND b.user_id = ?", id, userID).Scan(ctx)
	return row.batch(), notFound(err, "import")
}

func (l ledger) ListImports(ctx context.Context, userID string, p finance.ListParams) ([]finance.ImportBatch, int, error) {
	var rows []importBatchRow
	total, err := orderPage(l.selectImports(&rows).Where("b.user_id = ?", userID), "b.created_at", p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.ImportBatch, len(rows))
	for i, r := range rows {
		out[i] = r.batch()
	}
	return out, int(total), nil
}

func (l ledger) ImportRows(ctx context.Context, batchID string, f finance.ImportRowFilter, p finance.ListParams) ([]finance.ImportRow, int, error) {
	var rows []importRowRow
	q := l.db.NewSelect().Model(&rows).Where("r.batch_id = ?", batchID)
	if f.Action != "" {
		q = q.Where("r.action = ?", f.Action)
	}
	switch f.Match {
	case "":
	case finance.MatchNone:
		q = q.Where("r.match_kind IS NULL")
	default:
		q = q.Where("r.match_kind = ?", f.Match)
	}
	if f.Matched {
		q = q.Where("r.match_kind IS NOT NULL")
	}
	if f.Failed {
		q = q.Where("r.error IS NOT NULL")
	}
	q = q.OrderExpr("r.line").Limit(int64(p.Limit)).Offset(int64(p.Offset()))
	total, err := q.ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.ImportRow, len(rows))
	for i, r := range rows {
		out[i] = r.row()
	}
	return out, int(total), nil
}

func (l ledger) ImportRow(ctx context.Context, batchID string, line int) (finance.ImportRow, error) {
	var row importRowRow
	err := l.db.NewSelect().Model(&row).Where("r.batch_id = ? AND r.line = ?", batchID, line).Scan(ctx)
	return row.row(), notFound(err, "import row")
}

func (l ledger) UpdateImportRow(ctx context.Context, batchID string, r finance.ImportRow) error {
	row := newImportRowRow(batchID, r)
	_, err := l.db.NewUpdate().Model(&row).WherePK().Exec(ctx)
	return err
}

func (l ledger) UpdateImport(ctx context.Context, userID string, b finance.ImportBatch) error {
	row := newImportBatchRow(userID, b)
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn("created_at").
		Where("id = ? AND user_id = ?", b.ID, userID).Exec(ctx)
	return err
}

func (l ledger) DeleteImport(ctx context.Context, userID, id string) error {
	_, err := l.db.NewDelete().TableExpr("import_batches").Where("id = ? AND user_id = ?", id, userID).Exec(ctx)
	return err
}

func (l ledger) DeleteStaleImports(ctx context.Context, userID string, before time.Time) error {
	_, err := l.db.NewDelete().TableExpr("import_batches").
		Where("user_id = ? AND status = 'preview' AND created_at < ?", userID, before.UTC()).Exec(ctx)
	return err
}

func (l ledger) ImportLedger(ctx context.Context, userID string, t finance.ImportTarget, from, to finance.Date) ([]finance.LedgerEntry, error) {
	var out []finance.LedgerEntry
	var q *bun.SelectQuery
	if t.Kind == finance.TargetAccount {
		q = l.db.NewSelect().TableExpr("account_transactions AS x").
			ColumnExpr("x.id, x.date, x.amount, x.type AS direction, COALESCE(x.description, '') AS description").
			Where("x.user_id = ? AND x.account_id = ? AND x.status = 'posted'", userID, t.ID)
	} else {
		q = l.db.NewSelect().TableExpr("card_transactions AS x").
			ColumnExpr("x.id, x.date, x.amount, CASE WHEN x.type = 'refund' THEN 'credit' ELSE 'debit' END AS direction, x.description").
			Where("x.user_id = ? AND x.credit_card_id = ? AND x.status <> 'voided'", userID, t.ID)
	}
	err := q.Where("x.date >= ? AND x.date <= ?", from, to).OrderExpr("x.created_at, x.id").Scan(ctx, &out)
	return out, err
}

func (l ledger) ImportBankIDs(ctx context.Context, userID string, t finance.ImportTarget) (map[string]string, error) {
	var rows []struct {
		BankID   string
		RecordID string
	}
	err := l.db.NewSelect().TableExpr("import_rows AS r").
		Join("JOIN import_batches AS b ON b.id = r.batch_id").
		ColumnExpr("r.bank_id, COALESCE(r.row_id, r.match_record_id) AS record_id").
		Where("b.user_id = ? AND b.target_id = ? AND b.status = 'committed'", userID, t.ID).
		Where("r.bank_id IS NOT NULL AND COALESCE(r.row_id, r.match_record_id) IS NOT NULL").
		Scan(ctx, &rows)
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.BankID] = r.RecordID
	}
	return out, err
}

// categoryUseChunk bounds the descriptions of one query (SQLite's bound parameters).
const categoryUseChunk = 500

func (l ledger) CategoryUses(ctx context.Context, userID string, kind finance.CategoryKind, descriptions []string) (map[string]finance.CategoryUse, error) {
	table := "expenses"
	if kind == finance.KindIncome {
		table = "income"
	}
	uniq := map[string]bool{}
	var descs []string
	for _, d := range descriptions {
		// SQLite's lower() folds ASCII letters only; the keys are merged
		// again with the domain's folding below.
		d = strings.ToLower(strings.TrimSpace(d))
		if !uniq[d] {
			uniq[d] = true
			descs = append(descs, d)
		}
	}
	type use struct {
		Description string
		Name        string
		N           int
	}
	best := map[string]finance.CategoryUse{}
	counts := map[[2]string]int{}
	for start := 0; start < len(descs); start += categoryUseChunk {
		var rows []use
		err := l.db.NewSelect().TableExpr(table+" AS x").
			Join("JOIN categories AS c ON c.id = x.category_id AND c.status = 'active'").
			ColumnExpr("x.description, c.name, COUNT(*) AS n").
			Where("x.user_id = ? AND x.status = 'active'", userID).
			Where("lower(trim(x.description)) IN (?)", bun.In(descs[start:min(len(descs), start+categoryUseChunk)])).
			GroupExpr("x.description, c.id").
			Scan(ctx, &rows)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			k := [2]string{nameKey(r.Description), r.Name}
			counts[k] += r.N
		}
	}
	for k, n := range counts {
		if b, ok := best[k[0]]; !ok || n > b.Count || (n == b.Count && k[1] < b.Name) {
			best[k[0]] = finance.CategoryUse{Name: k[1], Count: n}
		}
	}
	return best, nil
}

// VoidImported voids every record a batch's commit created and the account
// line or card row each wrote: what voiding each one would do, row by row
// (statuses, void times; the kept totals follow through their triggers).
//
// It reads the batch's ids first and names them in the UPDATE, up to
// voidChunk a statement, rather than joining import_rows there: right after a
// commit, Postgres's statistics still describe the tables as they were before
// it, and for the join it chose a plan that read the batch's rows again for
// each line it voided (a 10,000-row revert took 43-54 s, 20,000 rows 146 s).
// A list of ids is found through the primary key, or checked against a hash
// of the list (Postgres 14 and later), whichever plan is chosen.
func (l ledger) VoidImported(ctx context.Context, userID, batchID string, now time.Time) error {
	for _, u := range []struct {
		table, live, column string
		records             []string
	}{
		{"account_transactions", "status = 'posted'", "row_id", nil},
		{"card_transactions", "status <> 'voided'", "row_id", nil},
		{"expenses", "status = 'active'", "record_id", []string{finance.RecordImportExpense}},
		{"income", "status = 'active'", "record_id", []string{finance.RecordImportIncome}},
	} {
		q := l.db.NewSelect().TableExpr("import_rows").Column(u.column).
			Where("batch_id = ? AND ? IS NOT NULL", batchID, bun.Ident(u.column))
		if len(u.records) > 0 {
			q = q.Where("record IN (?)", bun.In(u.records))
		}
		var ids []string
		if err := q.Scan(ctx, &ids); err != nil {
			return err
		}
		for start := 0; start < len(ids); start += voidChunk {
			part := ids[start:min(len(ids), start+voidChunk)]
			_, err := l.db.NewUpdate().TableExpr(u.table).Set("status = 'voided'").Set("voided_at = ?", now).
				Set("updated_at = ?", now).Where("user_id = ? AND id IN (?)", userID, bun.In(part)).Where(u.live).Exec(ctx)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// voidChunk is how many ids one of VoidImported's statements names: a batch
// at MaxImportRows takes five statements a table. Tests lower it.
var voidChunk = 10_000

// SetImportCreated stores what a commit created from each of rows, a
// thousand rows a statement.
func (l ledger) SetImportCreated(ctx context.Context, batchID string, rows []finance.ImportRow) error {
	for start := 0; start < len(rows); start += importInsertChunk {
		part := rows[start:min(len(rows), start+importInsertChunk)]
		values := make([]string, len(part))
		args := make([]any, 0, 3*len(part)+1)
		for i, r := range part {
			values[i] = "(?, ?, ?)"
			args = append(args, r.Line, r.CreatedID, r.CreatedRowID)
		}
		args = append(args, batchID)
		_, err := l.db.ExecContext(ctx, `UPDATE import_rows SET record_id = v.column2, row_id = v.column3
			FROM (VALUES `+strings.Join(values, ", ")+`) AS v WHERE import_rows.batch_id = ? AND import_rows.line = v.column1`, args...)
		if err != nil {
			return err
		}
	}
	return nil
}

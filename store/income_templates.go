package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type incomeTemplateRow struct {
	bun.BaseModel `bun:"table:income_templates,alias:it"`
	finance.IncomeTemplate
	UserID string
}

var incomeTemplateComputed = []string{"category"}

// selectIncomeTemplates reads templates with their category's name; removed ones never.
func (l ledger) selectIncomeTemplates(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(incomeTemplateComputed...).
		ColumnExpr("c.name AS category").
		Join("JOIN categories AS c ON c.id = it.category_id").
		Where("it.status <> 'removed'")
}

func (l ledger) IncomeTemplate(ctx context.Context, userID, id string) (finance.IncomeTemplate, error) {
	var row incomeTemplateRow
	err := l.selectIncomeTemplates(&row).Where("it.id = ? AND it.user_id = ?", id, userID).Scan(ctx)
	return row.IncomeTemplate, notFound(err, "income template")
}

var incomeTemplateSorts = map[string]string{"name": "it.name", "amount": "it.amount", "start_date": "it.start_date",
	"created_at": "it.created_at"}

func (l ledger) ListIncomeTemplates(ctx context.Context, userID string, f finance.IncomeTemplateFilter, p finance.ListParams) ([]finance.IncomeTemplate, int, error) {
	var rows []incomeTemplateRow
	q := l.selectIncomeTemplates(&rows).Where("it.user_id = ?", userID)
	if f.Status != "" {
		q = q.Where("it.status = ?", f.Status)
	}
	q = searchAny(q, f.Search, "it.name", "it.notes")
	total, err := orderPage(q, incomeTemplateSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.IncomeTemplate, len(rows))
	for i, r := range rows {
		out[i] = r.IncomeTemplate
	}
	return out, int(total), nil
}

func (l ledger) InsertIncomeTemplate(ctx context.Context, userID string, t finance.IncomeTemplate) error {
	_, err := l.db.NewInsert().Model(&incomeTemplateRow{IncomeTemplate: t, UserID: userID}).
		ExcludeColumn(incomeTemplateComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateIncomeTemplate(ctx context.Context, userID string, t finance.IncomeTemplate) error {
	_, err := l.db.NewUpdate().Model(&incomeTemplateRow{IncomeTemplate: t, UserID: userID}).
		ExcludeColumn(append([]string{"created_at"}, incomeTemplateComputed...)...).
		Where("id = ? AND user_id = ?", t.ID, userID).Exec(ctx)
	return err
}

// IncomeTemplatesBehind is a seek on income_templates_user, like TemplatesBehind.
func (l ledger) IncomeTemplatesBehind(ctx context.Context, userID string, horizon finance.Date) ([]finance.IncomeTemplate, error) {
	var rows []incomeTemplateRow
	err := l.selectIncomeTemplates(&rows).
		Where(`it.user_id = ? AND it.status = 'active' AND (it.generated_through IS NULL OR
			(it.generated_through < ? AND (it.end_date IS NULL OR it.generated_through < it.end_date)))`, userID, horizon).
		OrderExpr("it.id").Scan(ctx)
	out := make([]finance.IncomeTemplate, len(rows))
	for i, r := range rows {
		out[i] = r.IncomeTemplate
	}
	return out, err
}

func (l ledger) MarkIncomeGenerated(ctx context.Context, userID, templateID string, through finance.Date) error {
	_, err := l.db.NewUpdate().TableExpr("income_templates").Set("generated_through = ?", through).
		Where("id = ? AND user_id = ?", templateID, userID).Exec(ctx)
	return err
}

type expectedIncomeRow struct {
	bun.BaseModel `bun:"table:expected_income,alias:e"`
	finance.ExpectedIncome
	UserID string
}

var expectedIncomeComputed = []string{"category", "currency", "account_id"}

// selectExpectedIncome reads entries with their category's name and, while
// their template is not removed, its account.
func (l ledger) selectExpectedIncome(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(expectedIncomeComputed...).
		ColumnExpr("c.name AS category, it.currency AS currency").
		ColumnExpr("CASE WHEN it.status <> 'removed' THEN it.account_id END AS account_id").
		Join("JOIN categories AS c ON c.id = e.category_id").
		Join("JOIN income_templates AS it ON it.id = e.template_id")
}

func (l ledger) ExpectedIncome(ctx context.Context, userID, id string) (finance.ExpectedIncome, error) {
	var row expectedIncomeRow
	err := l.selectExpectedIncome(&row).Where("e.id = ? AND e.user_id = ?", id, userID).Scan(ctx)
	return row.ExpectedIncome, notFound(err, "expected income")
}

var expectedIncomeSorts = map[string]string{"expected_date": "e.expected_date", "amount": "e.amount", "created_at": "e.created_at"}

func (l ledger) ListExpectedIncome(ctx context.Context, userID string, f finance.ExpectedIncomeFilter, p finance.ListParams) ([]finance.ExpectedIncome, int, error) {
	var rows []expectedIncomeRow
	q := l.selectExpectedIncome(&rows).Where("e.user_id = ?", userID)
	if f.Status != "" {
		q = q.Where("e.status = ?", f.Status)
	}
	if !f.DateFrom.IsZero() {
		q = q.Where("e.expected_date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("e.expected_date <= ?", f.DateTo)
	}
	if f.TemplateID != "" {
		q = q.Where("e.template_id = ?", f.TemplateID)
	}
	total, err := orderPage(q, expectedIncomeSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.ExpectedIncome, len(rows))
	for i, r := range rows {
		out[i] = r.ExpectedIncome
	}
	return out, int(total), nil
}

func (l ledger) InsertExpectedIncome(ctx context.Context, userID string, entries []finance.ExpectedIncome) error {
	rows := make([]expectedIncomeRow, len(entries))
	for i, e := range entries {
		rows[i] = expectedIncomeRow{ExpectedIncome: e, UserID: userID}
	}
	_, err := l.db.NewInsert().Model(&rows).ExcludeColumn(expectedIncomeComputed...).
		On("CONFLICT (template_id, expected_date) DO NOTHING").Exec(ctx)
	return err
}

func (l ledger) UpdateExpectedIncome(ctx context.Context, userID string, e finance.ExpectedIncome) error {
	_, err := l.db.NewUpdate().Model(&expectedIncomeRow{ExpectedIncome: e, UserID: userID}).
		ExcludeColumn(append([]string{"created_at"}, expectedIncomeComputed...)...).
		Where("id = ? AND user_id = ?", e.ID, userID).Exec(ctx)
	return err
}

func (l ledger) DeletePendingIncome(ctx context.Context, userID, templateID string, from finance.Date) error {
	_, err := l.db.NewDelete().TableExpr("expected_income").
		Where("template_id = ? AND user_id = ? AND status = 'expected' AND expected_date >= ?", templateID, userID, from).
		Exec(ctx)
	return err
}

// ExpectedIncomeTotal sums per currency (the template's) and date, the
// date its rate is chosen for.
func (l ledger) ExpectedIncomeTotal(ctx context.Context, userID string, from, to finance.Date) ([]finance.DatedAmount, int, error) {
	var rows []struct {
		finance.DatedAmount
		Count int
	}
	err := l.db.NewSelect().TableExpr("expected_income AS e").
		Join("JOIN income_templates AS t ON t.id = e.template_id").
		ColumnExpr("t.currency, e.expected_date AS date, SUM(e.amount) AS amount, COUNT(*) AS count").
		Where("e.user_id = ? AND e.status = 'expected' AND e.expected_date >= ? AND e.expected_date <= ?", userID, from, to).
		GroupExpr("t.currency, e.expected_date").
		Scan(ctx, &rows)
	out := make([]finance.DatedAmount, len(rows))
	n := 0
	for i, r := range rows {
		out[i] = r.DatedAmount
		n += r.Count
	}
	return out, n, err
}

package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type planRow struct {
	bun.BaseModel `bun:"table:installment_plans,alias:ip"`
	finance.InstallmentPlan
	UserID string
}

// planComputed are the plan fields computed from its rows on read.
var planComputed = []string{"credit_card_name", "currency", "total_payable", "billed_count", "remaining_count",
	"remaining_principal", "remaining_payable", "next_installment_date"}

func (l ledger) selectPlans(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(planComputed...).
		ColumnExpr("cc.name AS credit_card_name, cc.currency AS currency").
		Join("JOIN credit_cards AS cc ON cc.id = ip.credit_card_id")
}

func (l ledger) InstallmentPlan(ctx context.Context, userID, id string) (finance.InstallmentPlan, error) {
	var row planRow
	if err := l.selectPlans(&row).Where("ip.id = ? AND ip.user_id = ?", id, userID).Scan(ctx); err != nil {
		return finance.InstallmentPlan{}, notFound(err, "installment plan")
	}
	plans := []finance.InstallmentPlan{row.InstallmentPlan}
	err := l.withPlanFigures(ctx, plans)
	return plans[0], err
}

var planSorts = map[string]string{"created_at": "ip.created_at", "first_installment_date": "ip.first_installment_date",
	"principal": "ip.principal"}

func (l ledger) ListInstallmentPlans(ctx context.Context, userID string, f finance.PlanFilter, p finance.ListParams) ([]finance.InstallmentPlan, int, error) {
	var rows []planRow
	q := l.selectPlans(&rows).Where("ip.user_id = ?", userID)
	if f.Status != "" {
		q = q.Where("ip.status = ?", f.Status)
	}
	if f.CardID != "" {
		q = q.Where("ip.credit_card_id = ?", f.CardID)
	}
	if !f.DateFrom.IsZero() {
		q = q.Where("ip.first_installment_date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("ip.first_installment_date <= ?", f.DateTo)
	}
	q = searchAny(q, f.Search, "ip.description")
	total, err := orderPage(q, planSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.InstallmentPlan, len(rows))
	for i, r := range rows {
		out[i] = r.InstallmentPlan
	}
	return out, int(total), l.withPlanFigures(ctx, out)
}

// withPlanFigures fills the figures computed from the plans' rows with one
// aggregate over them (card_transactions_plan).
func (l ledger) withPlanFigures(ctx context.Context, plans []finance.InstallmentPlan) error {
	if len(plans) == 0 {
		return nil
	}
	ids := make([]string, len(plans))
	for i, p := range plans {
		ids[i] = p.ID
	}
	var sums []struct {
		InstallmentPlanID   string
		BilledCount         int
		RemainingCount      int
		RemainingPrincipal  finance.Money
		RemainingPayable    finance.Money
		NextInstallmentDate *finance.Date
	}
	err := l.db.NewSelect().TableExpr("card_transactions AS t").
		Column("t.installment_plan_id").
		ColumnExpr("SUM(CASE WHEN t.status = 'billed' THEN 1 ELSE 0 END) AS billed_count").
		ColumnExpr("SUM(CASE WHEN t.status = 'unbilled' THEN 1 ELSE 0 END) AS remaining_count").
		ColumnExpr("SUM(CASE WHEN t.status = 'unbilled' THEN t.principal_portion ELSE 0 END) AS remaining_principal").
		ColumnExpr("SUM(CASE WHEN t.status = 'unbilled' THEN t.amount ELSE 0 END) AS remaining_payable").
		ColumnExpr("MIN(CASE WHEN t.status = 'unbilled' THEN t.date END) AS next_installment_date").
		Where("t.installment_plan_id IN (?)", bun.In(ids)).
		Group("t.installment_plan_id").
		Scan(ctx, &sums)
	if err != nil {
		return err
	}
	byID := make(map[string]int, len(plans))
	for i, p := range plans {
		byID[p.ID] = i
		plans[i].TotalPayable = p.Principal + p.TotalInterest
	}
	for _, s := range sums {
		p := &plans[byID[s.InstallmentPlanID]]
		p.BilledCount, p.RemainingCount = s.BilledCount, s.RemainingCount
		p.RemainingPrincipal, p.RemainingPayable, p.NextInstallmentDate = s.RemainingPrincipal, s.RemainingPayable, s.NextInstallmentDate
	}
	return nil
}

func (l ledger) InsertInstallmentPlan(ctx context.Context, userID string, p finance.InstallmentPlan) error {
	_, err := l.db.NewInsert().Model(&planRow{InstallmentPlan: p, UserID: userID}).ExcludeColumn(planComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateInstallmentPlan(ctx context.Context, userID string, p finance.InstallmentPlan) error {
	_, err := l.db.NewUpdate().Model(&planRow{InstallmentPlan: p, UserID: userID}).
		ExcludeColumn(append([]string{"created_at"}, planComputed...)...).
		Where("id = ? AND user_id = ?", p.ID, userID).Exec(ctx)
	return err
}

func (l ledger) PlanRows(ctx context.Context, userID, planID string) ([]finance.CardTransaction, error) {
	var rows []cardTransactionRow
	err := l.selectCardRows(&rows).Where("t.installment_plan_id = ? AND t.user_id = ?", planID, userID).
		OrderExpr("t.installment_number IS NULL, t.installment_number, t.id").Scan(ctx)
	out := make([]finance.CardTransaction, len(rows))
	for i, r := range rows {
		out[i] = r.transaction()
	}
	return out, err
}

func (l ledger) PlanBillings(ctx context.Context, cardID string) ([]finance.PlanBilling, error) {
	var out []finance.PlanBilling
	err := l.db.NewSelect().TableExpr("installment_plans AS ip").
		Column("ip.id", "ip.status").
		ColumnExpr(`(SELECT COUNT(*) FROM card_transactions AS t
			WHERE t.installment_plan_id = ip.id AND t.status = 'unbilled') AS unbilled`).
		Where("ip.credit_card_id = ? AND ip.status IN ('active', 'completed')", cardID).
		Scan(ctx, &out)
	return out, err
}

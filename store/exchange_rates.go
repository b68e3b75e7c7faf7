package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type exchangeRateRow struct {
	bun.BaseModel `bun:"table:exchange_rates,alias:xr"`

	finance.ExchangeRate
	UserID *string
}

// readableRates are the rates a user reads: the server's and their own.
const readableRates = "(xr.user_id IS NULL OR xr.user_id = ?)"

// rateOrder puts the rate a conversion uses first: the latest date, and on
// one date the person's own before a fetched one.
const rateOrder = "xr.date DESC, (xr.source = 'manual') DESC, xr.source"

func (l ledger) ExchangeRates(ctx context.Context, userID string, f finance.ExchangeRateFilter, p finance.ListParams) ([]finance.ExchangeRate, int, error) {
	var rows []exchangeRateRow
	q := l.db.NewSelect().Model(&rows).Where(readableRates, userID)
	for col, v := range map[string]string{"xr.base": f.Base, "xr.quote": f.Quote, "xr.source": f.Source} {
		if v != "" {
			q = q.Where("? = ?", bun.Ident(col), v)
		}
	}
	if !f.From.IsZero() {
		q = q.Where("xr.date >= ?", f.From)
	}
	if !f.To.IsZero() {
		q = q.Where("xr.date <= ?", f.To)
	}
	total, err := q.OrderExpr(rateOrder + ", xr.base, xr.quote, xr.id").
		Limit(int64(p.Limit)).Offset(int64(p.Offset())).ScanAndCount(ctx)
	return ratesOf(rows), int(total), err
}

func ratesOf(rows []exchangeRateRow) []finance.ExchangeRate {
	out := make([]finance.ExchangeRate, len(rows))
	for i, r := range rows {
		out[i] = r.ExchangeRate
	}
	return out
}

func (l ledger) LatestExchangeRates(ctx context.Context, userID string) ([]finance.ExchangeRate, error) {
	var rows []exchangeRateRow
	// The first row of each pair in rateOrder.
	err := l.db.NewSelect().Model(&rows).
		ColumnExpr("xr.*").
		Where(readableRates, userID).
		Where(`xr.id = (SELECT x2.id FROM exchange_rates AS x2
			WHERE x2.base = xr.base AND x2.quote = xr.quote AND (x2.user_id IS NULL OR x2.user_id = ?)
			ORDER BY x2.date DESC, (x2.source = 'manual') DESC, x2.source LIMIT 1)`, userID).
		Order("xr.base", "xr.quote").Scan(ctx)
	return ratesOf(rows), err
}

func (l ledger) LatestExchangeRate(ctx context.Context, userID, base, quote string, date finance.Date) (finance.ExchangeRate, bool, error) {
	var rows []exchangeRateRow
	err := l.db.NewSelect().Model(&rows).
		Where("xr.base = ? AND xr.quote = ? AND xr.date <= ?", base, quote, date).
		Where(readableRates, userID).
		OrderExpr(rateOrder).Limit(1).Scan(ctx)
	if err != nil || len(rows) == 0 {
		return finance.ExchangeRate{}, false, err
	}
	return rows[0].ExchangeRate, true, nil
}

func (l ledger) ManualExchangeRate(ctx context.Context, userID, id string) (finance.ExchangeRate, error) {
	var rows []exchangeRateRow
	if err := l.db.NewSelect().Model(&rows).Where("xr.id = ? AND xr.user_id = ?", id, userID).Scan(ctx); err != nil {
		return finance.ExchangeRate{}, err
	}
	if len(rows) == 0 {
		return finance.ExchangeRate{}, finance.NotFound("exchange rate")
	}
	return rows[0].ExchangeRate, nil
}

func (l ledger) ManualExchangeRateOn(ctx context.Context, userID, base, quote string, date finance.Date) (finance.ExchangeRate, bool, error) {
	var rows []exchangeRateRow
	err := l.db.NewSelect().Model(&rows).
		Where("xr.user_id = ? AND xr.base = ? AND xr.quote = ? AND xr.date = ?", userID, base, quote, date).Scan(ctx)
	if err != nil || len(rows) == 0 {
		return finance.ExchangeRate{}, false, err
	}
	return rows[0].ExchangeRate, true, nil
}

func (l ledger) InsertManualExchangeRate(ctx context.Context, userID string, r finance.ExchangeRate) error {
	row := exchangeRateRow{ExchangeRate: r, UserID: &userID}
	_, err := l.db.NewInsert().Model(&row).Exec(ctx)
	return err
}

func (l ledger) DeleteManualExchangeRate(ctx context.Context, userID, id string) error {
	_, err := l.db.NewDelete().TableExpr("exchange_rates").Where("id = ? AND user_id = ?", id, userID).Exec(ctx)
	return err
}

func (l ledger) InsertFetchedExchangeRates(ctx context.Context, rates []finance.ExchangeRate) (int, error) {
	added := 0
	for _, r := range rates {
		row := exchangeRateRow{ExchangeRate: r}
		res, err := l.db.NewInsert().Model(&row).On("CONFLICT DO NOTHING").Exec(ctx)
		if err != nil {
			return added, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return added, err
		}
		added += int(n)
	}
	return added, nil
}

func (l ledger) ExchangeRatesBetween(ctx context.Context, userID string, currencies []string, from, to finance.Date) ([]finance.ExchangeRate, error) {
	var rows []exchangeRateRow
	// Each pair from its latest date on or before from: the rate a group of
	// that date converts with, and every later one up to to.
	err := l.db.NewSelect().Model(&rows).
		Where("xr.base IN (?) AND xr.quote IN (?) AND xr.date <= ?", bun.In(currencies), bun.In(currencies), to).
		Where(readableRates, userID).
		Where(`xr.date >= COALESCE((SELECT MAX(x2.date) FROM exchange_rates AS x2
			WHERE x2.base = xr.base AND x2.quote = xr.quote AND (x2.user_id IS NULL OR x2.user_id = ?) AND x2.date <= ?), '')`,
			userID, from).
		OrderExpr(rateOrder).Scan(ctx)
	return ratesOf(rows), err
}

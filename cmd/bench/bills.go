package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// measureBillsAndLoans times the bill list and summary with ten years of
// monthly templates, and this month's loan dues with 50 loans: the reads an
// agent makes before it pays a bill or an installment.
func measureBillsAndLoans(ctx context.Context, bin, data string, c *client, today finance.Date, reads int, add func(string, string, ...any)) error {
	const loans, templates, years = 50, 24, 10
	srv, err := start(bin, data)
	if err != nil {
		return err
	}
	c.base = srv.url + "/api/v1"
	for i := range loans {
		// Terms of 5 to 30 years started up to 4 years ago: every loan still
		// has instances due this month and later.
		startDate := finance.MonthAdd(today, -(i % 48), 1+i%28)
		kind := []string{`"interest_type":"diminishing","interest_rate":"12"`, `"interest_type":"add_on","interest_rate":"1.5"`,
			`"interest_type":"none"`}[i%3]
		body := fmt.Sprintf(`{"name":"Bench loan %d","principal":%d,%s,"term_months":%d,"start_date":%q}`,
			i, 100_000+i*25_000, kind, 60+(i%6)*60, startDate)
		if err := c.do("POST", "/loans", body, nil); err != nil {
			srv.stop()
			return fmt.Errorf("create loan: %w", err)
		}
	}
	if err := srv.stop(); err != nil {
		return err
	}
	db, err := store.Open(filepath.Join(data, store.FileName))
	if err != nil {
		return err
	}
	instances, err := seedBillHistory(ctx, db, email, templates, years, today)
	if err == nil {
		err = settleLoanHistory(ctx, db, email, today)
	}
	db.Close()
	if err != nil {
		return err
	}

	if srv, err = start(bin, data); err != nil {
		return err
	}
	defer srv.stop()
	c.base = srv.url + "/api/v1"
	month := finance.MonthAdd(today, 0, 1)
	label := fmt.Sprintf("%d monthly templates over %d years (%s bills)", templates, years, humanInt(instances))
	for _, q := range []struct{ name, path string }{
		{"GET /bills (oldest first)", "/bills"},
		{"GET /bills?status=open", "/bills?status=open"},
		{"GET /bills this month", "/bills?dateFrom=" + month.String() + "&dateTo=" + finance.MonthAdd(today, 0, 31).String()},
		{"GET /bills/summary", "/bills/summary"},
	} {
		r := c.load(reads, 1, get(q.path))
		add(fmt.Sprintf("(g) %s, %s", q.name, label), "p50 %s, p99 %s, errors %d", ms(r.p50), ms(r.p99), r.errors)
	}
	for _, q := range []struct{ name, path string }{
		{"GET /loans/current-month-dues", "/loans/current-month-dues"},
		{"GET /loans", "/loans"},
	} {
		r := c.load(reads, 1, get(q.path))
		add(fmt.Sprintf("(g) %s, %d loans", q.name, loans), "p50 %s, p99 %s, errors %d", ms(r.p50), ms(r.p99), r.errors)
	}
	return nil
}

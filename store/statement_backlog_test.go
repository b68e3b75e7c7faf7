package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// backlogRow is a card row as the backlog test writes and reads it.
type backlogRow struct {
	ID     string        `bun:"id"`
	Type   string        `bun:"type"`
	Amount finance.Money `bun:"amount"`
	Date   finance.Date  `bun:"date"`
	Status string        `bun:"status"`
}

// backlogStatement is what a generated statement must say.
type backlogStatement struct {
	StatementDate    string        `bun:"statement_date"`
	PeriodStart      string        `bun:"period_start"`
	PeriodEnd        string        `bun:"period_end"`
	DueDate          string        `bun:"due_date"`
	ChargesTotal     finance.Money `bun:"charges_total"`
	CreditsTotal     finance.Money `bun:"credits_total"`
	StatementBalance finance.Money `bun:"statement_balance"`
	MinimumDue       finance.Money `bun:"minimum_due"`
	TransactionCount int           `bun:"transaction_count"`
	Status           string        `bun:"status"`
}

// A backlog of years is billed in one statement, but must come out as
// generating one statement date at a time did: the same statements
// (periods, due dates, totals, minimum due, status), each row on the
// statement of the first open date on or after its own date, a date with
// nothing to bill left without a statement, a period a live statement
// already holds skipped, voided and converted rows untouched, and the
// card's kept totals equal to a recount. Both ways of keeping the totals
// are taken: one statement due (the per-row trigger) and a backlog (one
// update, the trigger suspended and restored in the same transaction).
func TestStatementBacklogMatchesOneDateAtATime(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	svc := finance.NewService(db)
	u := createUser(t, db, "backlog@example.com")
	exec := execer(t, db)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const statementDay, dueDay = 31, 5 // clamped to each month's end
	cycleStart := finance.NewDate(2021, 1, 1)
	cardID := finance.NewID()
	exec(`INSERT INTO credit_cards (id, user_id, name, name_key, credit_limit, statement_day, due_day, cycle_start_date,
		minimum_due_percent, minimum_due_floor, status, currency, created_at, updated_at)
		VALUES (?, ?, 'Visa', 'visa', 999999999, ?, ?, ?, '3', 50000, 'active', 'PHP', '2021-01-01 08:00:00+00:00', '2021-01-01 08:00:00+00:00')`,
		cardID, u.ID, statementDay, dueDay, cycleStart)
	card, err := svc.GetCreditCard(ctx, u.ID, cardID)
	must(err)

	// rows are every row written, with the statement date the old
	// one-date-at-a-time generation put each on (zero: not billed).
	var rows []backlogRow
	add := func(typ string, amount finance.Money, date finance.Date, status string) {
		r := backlogRow{ID: finance.NewID(), Type: typ, Amount: amount, Date: date, Status: status}
		var interest any
		if typ == "installment" {
			interest = amount / 10
		}
		exec(`INSERT INTO card_transactions (id, user_id, credit_card_id, type, amount, date, description, status, interest_portion,
			created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'row', ?, ?, '2021-01-01 08:00:00+00:00', '2021-01-01 08:00:00+00:00')`,
			r.ID, u.ID, cardID, typ, r.Amount, r.Date, status, interest)
		rows = append(rows, r)
	}
	types := []string{"purchase", "purchase", "refund", "fee", "purchase", "interest", "installment"}
	addMonths := func(from finance.Date, months, perMonth int) {
		for m := 0; m < months; m++ {
			if m%7 == 3 {
				continue // a month with nothing to bill gets no statement
			}
			for i := 0; i < perMonth; i++ {
				d := finance.MonthAdd(from, m, 1+(i*11+m)%28)
				add(types[(i+m)%len(types)], finance.Money(100+(i*7919+m*104729)%90000), d, "unbilled")
			}
		}
		add("purchase", 12345, finance.MonthAdd(from, 1, 2), "voided")
		add("purchase", 54321, finance.MonthAdd(from, 2, 3), "converted")
	}

	// live are the statement dates that have a statement; want is the
	// state one date at a time makes: each open date from the oldest,
	// billing every unbilled row dated on or before it.
	live := map[finance.Date]bool{}
	billedOn := map[string]finance.Date{}
	var want []backlogStatement
	generateAsBefore := func(today finance.Date) {
		for k := 0; ; k++ {
			sd := finance.MonthAdd(cycleStart, k, statementDay)
			if !sd.Before(today) {
				return
			}
			if live[sd] {
				continue
			}
			var s backlogStatement
			for _, r := range rows {
				if r.Status != "unbilled" || billedOn[r.ID] != (finance.Date{}) || r.Date.After(sd) {
					continue
				}
				billedOn[r.ID] = sd
				s.TransactionCount++
				if r.Type == "refund" {
					s.CreditsTotal += r.Amount
				} else {
					s.ChargesTotal += r.Amount
				}
			}
			if s.TransactionCount == 0 {
				continue
			}
			p := finance.StatementPeriod(statementDay, sd)
			s.StatementDate, s.PeriodStart, s.PeriodEnd = sd.String(), p.Start.String(), p.End.String()
			s.DueDate = finance.DueDate(sd, dueDay).String()
			s.StatementBalance = s.ChargesTotal - s.CreditsTotal
			s.MinimumDue = finance.MinimumDue(s.StatementBalance, card.MinimumDuePercent, card.MinimumDueFloor)
			s.Status = finance.SOAUnpaid
			if s.StatementBalance <= 0 {
				s.Status = finance.SOAPaid
			}
			live[sd] = true
			want = append(want, s)
		}
	}
	check := func(step string, today finance.Date) {
		t.Helper()
		svc.SetClock(func() time.Time { return time.Date(today.Year(), today.Month(), today.Day(), 4, 0, 0, 0, time.UTC) })
		must(svc.GenerateStatements(ctx, u.ID))
		generateAsBefore(today)
		var got []backlogStatement
		must(db.ReaderScan(ctx, &got, `SELECT statement_date, period_start, period_end, due_date, charges_total, credits_total,
			statement_balance, minimum_due, transaction_count, status FROM soas WHERE credit_card_id = ? AND status <> 'voided'
			ORDER BY statement_date`, cardID))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: statements (-one date at a time +backlog):\n%s", step, diff)
		}
		var placed []struct {
			ID            string `bun:"id"`
			Status        string `bun:"status"`
			StatementDate string `bun:"statement_date"`
		}
		must(db.ReaderScan(ctx, &placed, `SELECT t.id, t.status, COALESCE(s.statement_date, '') AS statement_date
			FROM card_transactions AS t LEFT JOIN soas AS s ON s.id = t.soa_id WHERE t.credit_card_id = ?`, cardID))
		gotOn, wantOn := map[string]string{}, map[string]string{}
		for _, p := range placed {
			gotOn[p.ID] = p.Status + " " + p.StatementDate
		}
		for _, r := range rows {
			switch sd := billedOn[r.ID]; {
			case r.Status != "unbilled":
				wantOn[r.ID] = r.Status + " "
			case sd.IsZero():
				wantOn[r.ID] = "unbilled "
			default:
				wantOn[r.ID] = "billed " + sd.String()
			}
		}
		if diff := cmp.Diff(wantOn, gotOn); diff != "" {
			t.Fatalf("%s: rows' statements (-one date at a time +backlog):\n%s", step, diff)
		}
		drift, err := db.TotalsDrift(ctx)
		must(err)
		if len(drift) > 0 {
			t.Fatalf("%s: kept totals differ from a recount: %v", step, drift)
		}
		triggers, err := db.QueryInt(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'card_totals_update'")
		must(err)
		if triggers != 1 {
			t.Fatalf("%s: card_totals_update triggers: %d, want 1", step, triggers)
		}
	}

	// One statement due: the per-row trigger keeps the totals.
	addMonths(cycleStart, 2, 9)
	check("one statement due", finance.NewDate(2021, 2, 10))
	if len(want) != 1 {
		t.Fatalf("one statement due: %d statements, want 1", len(want))
	}
	// Years of backlog, with rows posted late into the period of the live
	// statement (they go to the first open date after it) and rows of the
	// current period (left unbilled).
	addMonths(finance.NewDate(2021, 2, 1), 44, 23)
	add("purchase", 777, finance.NewDate(2021, 1, 20), "unbilled")
	add("refund", 888, finance.NewDate(2021, 1, 21), "unbilled")
	check("a backlog of years", finance.NewDate(2024, 9, 20))
	if len(want) < 30 {
		t.Fatalf("a backlog of years: %d statements, want at least 30", len(want))
	}
	// Nothing more is due: generating again changes nothing.
	check("generated again", finance.NewDate(2024, 9, 20))
	// The restored trigger keeps the totals of the rows written after.
	add("purchase", 4242, finance.NewDate(2024, 9, 20), "unbilled")
	exec(`UPDATE card_transactions SET amount = amount + 1 WHERE credit_card_id = ? AND status = 'billed' AND type = 'refund'`, cardID)
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Fatalf("after later writes: kept totals differ from a recount: %v %v", drift, err)
	}
}

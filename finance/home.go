package finance

import (
	"context"
	"slices"
	"strconv"
)

// What Home's first screen reads beside the dashboard (docs/domain.md,
// "Home: the first screen"): what is due soon, and net worth at the end of
// each month.

// DueSoonDays is how far ahead Home looks for what is due: two weeks, so a
// statement due just after the next payday is already in sight.
const DueSoonDays = 14

// Kinds of DueItem.
const (
	DueStatement = "statement"
	DueBill      = "bill"
	DueLoan      = "loan"
)

// DueItem is one open statement, bill or loan installment with money left
// to pay. ID is the statement, the bill instance or the loan (whose page
// holds the installment).
type DueItem struct {
	Kind      string
	ID        string
	Name      string // "Visa statement", "Rent", "Car loan, installment 3"
	DueDate   Date
	Remaining Money
	Currency  string // Remaining's: the card's, the bill's or the loan's
	Days      int    // days from today to the due date; negative when overdue
}

// Overdue reports whether the item's due date has passed.
func (d DueItem) Overdue() bool { return d.Days < 0 }

// When says when the item is due, in words: "21 days overdue", "1 day
// overdue", "due today", "due tomorrow", "due in 5 days".
func (d DueItem) When() string { return DueWords(d.Days) }

// DueWords says in words when something due days from today is due. Every
// page that tells how far a due date is, and the reminders' messages, say it
// this way, never as a signed number of days.
func DueWords(days int) string {
	switch n := days; {
	case n == 0:
		return "due today"
	case n == 1:
		return "due tomorrow"
	case n == -1:
		return "1 day overdue"
	case n < 0:
		return strconv.Itoa(-n) + " days overdue"
	default:
		return "due in " + strconv.Itoa(n) + " days"
	}
}

// DueSoon lists the user's open statements, bills and loan installments
// with money left to pay that are overdue or due within days of today (by
// the user's calendar), soonest first, so what is overdue leads; a tie keeps
// statements, then bills, then loans. Statements are read as generated (the
// page asks for them first); bills are generated through the window here,
// since the window may reach into a month no page has asked for yet.
func (s *Service) DueSoon(ctx context.Context, userID string, days int) ([]DueItem, error) {
	today := s.today(ctx, userID)
	through := today.AddDays(days)
	if err := s.GenerateBills(ctx, userID, through); err != nil {
		return nil, err
	}
	// Anything still open is overdue however old: the window starts at the
	// first date the service takes.
	since := NewDate(1900, 1, 1)
	var out []DueItem
	add := func(kind, id, name string, due Date, remaining Money, currency string) {
		out = append(out, DueItem{Kind: kind, ID: id, Name: name, DueDate: due, Remaining: remaining, Currency: currency,
			Days: today.DaysUntil(due)})
	}
	soas, err := s.openStatementsDue(ctx, userID, today, since, through)
	if err != nil {
		return nil, err
	}
	for _, a := range soas {
		add(DueStatement, a.ID, a.CreditCardName+" statement", a.DueDate, a.Remaining, a.Currency)
	}
	repo := s.store.Read()
	bills, err := repo.OpenBillsDue(ctx, userID, since, through, maxRemindersPerKind)
	if err != nil {
		return nil, err
	}
	for _, b := range bills {
		add(DueBill, b.ID, b.Name, b.DueDate, b.Amount-b.PaidTotal, b.Currency)
	}
	dues, err := repo.OpenInstancesDue(ctx, userID, since, through)
	if err != nil {
		return nil, err
	}
	for _, x := range dues {
		add(DueLoan, x.LoanID, x.LoanName+", installment "+strconv.Itoa(x.InstallmentNumber), x.DueDate, x.AmountDue-x.PaidTotal, x.Currency)
	}
	// A stable sort by date keeps the kinds in the order they were added.
	slices.SortStableFunc(out, func(a, b DueItem) int { return a.DueDate.Compare(b.DueDate) })
	return out, nil
}

// NetWorthPoint is net worth at the end of a month (its first day names
// it); the month holding today ends today. Missing names the currencies
// left out of it for want of a rate on or before the month's last day.
type NetWorthPoint struct {
	Month    Date
	NetWorth Money
	Missing  []string
}

// NetWorthChangeRepo reads what moved net worth, per day.
type NetWorthChangeRepo interface {
	// NetWorthChanges sums, per currency and day after after, what changed
	// the user's net worth (docs/domain.md, "Net worth over time"): account
	// lines, card rows (installments on the day of the purchase they
	// converted), statement payments, loan payments' principal and the
	// start of loans that are not cancelled, each in its record's currency.
	NetWorthChanges(ctx context.Context, userID string, after Date) ([]DatedAmount, error)
}

// NetWorthHistory is today's net worth (the net-worth report) and net
// worth at the end of each of the months months ending with the one holding
// month, oldest first: each currency's net today less every change dated
// after the month's last day, converted at that day's rate. The month
// holding today is today's figure, whatever is dated later.
func (s *Service) NetWorthHistory(ctx context.Context, userID string, month Date, months int) (NetWorthReport, []NetWorthPoint, error) {
	today := s.today(ctx, userID)
	// The header names the reporting currency: net worth converts to it.
	now, err := s.netWorth(ctx, userID, asOf(ReportHeader{Report: ReportNetWorth, Currency: s.currency(ctx, userID)}, today), today)
	if err != nil {
		return now, nil, err
	}
	first := MonthAdd(month, 1-months, 1)
	_, beforeFirst := MonthRange(MonthAdd(first, -1, 1))
	changes, err := s.store.Read().NetWorthChanges(ctx, userID, beforeFirst)
	if err != nil {
		return now, nil, err
	}
	// Each month's end stands at today's net of each currency less what
	// changed it after that day, converted at the rate of that day. Every
	// currency that changed has a line today: its accounts, cards and loans
	// are all in net worth's by_currency.
	thisMonth := MonthAdd(today, 0, 1)
	ends := make([][]DatedAmount, months)
	for i := range ends {
		start := MonthAdd(first, i, 1)
		if start == thisMonth {
			continue
		}
		_, end := MonthRange(start)
		for _, line := range now.ByCurrency {
			net := line.Total
			for _, c := range changes {
				if c.Currency == line.Currency && c.Date.After(end) {
					net -= c.Amount
				}
			}
			ends[i] = append(ends[i], DatedAmount{Currency: line.Currency, Date: end, Amount: net})
		}
	}
	conv, err := s.sumConverter(ctx, userID, now.Currency, ends...)
	if err != nil {
		return now, nil, err
	}
	out := make([]NetWorthPoint, months)
	for i := range out {
		start := MonthAdd(first, i, 1)
		if start == thisMonth {
			out[i] = NetWorthPoint{Month: start, NetWorth: now.NetWorth, Missing: missingCurrencies(now.ConversionNote)}
			continue
		}
		p := NetWorthPoint{Month: start}
		p.NetWorth, _ = conv.Total(ctx, ends[i])
		p.Missing = missingCurrencies(conv.NoteOf(ctx, ends[i]))
		out[i] = p
	}
	if err := conv.Err(); err != nil {
		return now, nil, err
	}
	return now, out, nil
}

// missingCurrencies are the currencies a note says were left out.
func missingCurrencies(n ConversionNote) []string {
	var out []string
	for _, m := range n.MissingRates {
		out = append(out, m.Currency)
	}
	return out
}

// CategoryColors maps the user's categories, archived ones included, to
// the colours they were given; a category without one is absent.
func (s *Service) CategoryColors(ctx context.Context, userID string) (map[string]string, error) {
	cats, _, err := s.store.Read().ListCategories(ctx, userID, CategoryFilter{Status: StatusAll},
		ListParams{Page: 1, Limit: allRows, SortBy: CategoryList.Sorts[0]})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(cats))
	for _, c := range cats {
		if c.Color != nil {
			out[c.ID] = *c.Color
		}
	}
	return out, nil
}

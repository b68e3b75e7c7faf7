package finance

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func day(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func money(s string) Money {
	m, err := ParseMoney(s)
	if err != nil {
		panic(err)
	}
	return m
}

// fileRow is a row of a file as preview stores it before matching.
func fileRow(line int, date, amount, direction, desc, bankID string) ImportRow {
	d, m := day(date), money(amount)
	r := ImportRow{Line: line, Date: &d, Amount: &m, Direction: direction, Description: desc, Action: ActionCreate}
	if bankID != "" {
		r.BankID = &bankID
	}
	return r
}

func entry(id, date, amount, direction, desc string) LedgerEntry {
	return LedgerEntry{ID: id, Date: day(date), Amount: money(amount), Direction: direction, Description: desc}
}

// matches lists each row's match as "line:kind:record" ("line:-" for none,
// "line:error" for an error), the shape of domain.md's tables.
func matches(rows []ImportRow) []string {
	var out []string
	for _, r := range rows {
		switch {
		case r.Error != nil:
			out = append(out, strconv.Itoa(r.Line)+":error "+*r.Error)
		case r.Match == nil:
			out = append(out, strconv.Itoa(r.Line)+":-")
		default:
			out = append(out, strconv.Itoa(r.Line)+":"+r.Match.Kind+":"+r.Match.RecordID)
		}
	}
	return out
}

func TestMatchRows(t *testing.T) {
	// domain.md's worked example: "BPI Savings" holds a Coffee and a Meralco
	// typed earlier.
	typed := []LedgerEntry{
		entry("coffee", "2026-11-02", "150.00", DirectionDebit, "Coffee"),
		entry("meralco", "2026-11-05", "2500.00", DirectionDebit, "Meralco"),
	}
	bankCSV := func() []ImportRow {
		return []ImportRow{
			fileRow(2, "2026-11-02", "150.00", DirectionDebit, "STARBUCKS", ""),
			fileRow(3, "2026-11-02", "150.00", DirectionDebit, "STARBUCKS", ""),
			fileRow(4, "2026-11-06", "2500.00", DirectionDebit, "MERALCO BILLS PAYMENT", ""),
			fileRow(5, "2026-11-07", "30000.00", DirectionCredit, "PAYROLL", ""),
		}
	}
	// After the first commit: lines 3 and 5 were created, after the typed records.
	committed := append(append([]LedgerEntry{}, typed...),
		entry("starbucks", "2026-11-02", "150.00", DirectionDebit, "STARBUCKS"),
		entry("payroll", "2026-11-07", "30000.00", DirectionCredit, "PAYROLL"))

	tests := []struct {
		name    string
		rows    []ImportRow
		ledger  []LedgerEntry
		bankIDs map[string]string
		want    []string
	}{{
		name:   "worked example",
		rows:   bankCSV(),
		ledger: typed,
		want:   []string{"2:exact:coffee", "3:-", "4:probable:meralco", "5:-"},
	}, {
		name:   "the same file again after its commit creates nothing",
		rows:   bankCSV(),
		ledger: committed,
		want:   []string{"2:exact:coffee", "3:exact:starbucks", "4:probable:meralco", "5:exact:payroll"},
	}, {
		name: "two identical coffees on one day in one file are both kept",
		rows: []ImportRow{
			fileRow(2, "2026-11-10", "150.00", DirectionDebit, "Coffee", ""),
			fileRow(3, "2026-11-10", "150.00", DirectionDebit, "Coffee", ""),
		},
		want: []string{"2:-", "3:-"},
	}, {
		name: "overlapping statements create each transaction once",
		// The first statement (11-01 to 11-15) was committed; the second
		// covers 11-10 to 11-20.
		rows: []ImportRow{
			fileRow(2, "2026-11-12", "99.00", DirectionDebit, "Grab", ""),
			fileRow(3, "2026-11-14", "500.00", DirectionDebit, "SM", ""),
			fileRow(4, "2026-11-18", "75.00", DirectionDebit, "Jollibee", ""),
		},
		ledger: []LedgerEntry{
			entry("grab", "2026-11-12", "99.00", DirectionDebit, "Grab"),
			entry("sm", "2026-11-14", "500.00", DirectionDebit, "SM"),
		},
		want: []string{"2:exact:grab", "3:exact:sm", "4:-"},
	}, {
		name: "the bank id wins over a changed date",
		rows: []ImportRow{
			fileRow(2, "2026-11-13", "99.00", DirectionDebit, "Grab", "FIT-1"),
			fileRow(3, "2026-11-13", "99.00", DirectionDebit, "Grab", "FIT-2"),
		},
		ledger: []LedgerEntry{
			entry("first", "2026-11-12", "99.00", DirectionDebit, "Grab"),
			entry("other", "2026-11-13", "99.00", DirectionDebit, "Grab"),
		},
		bankIDs: map[string]string{"FIT-1": "first"},
		want:    []string{"2:exact:first", "3:exact:other"},
	}, {
		name: "a bank id repeated in one file",
		rows: []ImportRow{
			fileRow(2, "2026-11-13", "99.00", DirectionDebit, "Grab", "FIT-1"),
			fileRow(3, "2026-11-14", "12.00", DirectionDebit, "Grab", "FIT-1"),
		},
		want: []string{"2:-", "3:error repeats the bank id of line 2"},
	}, {
		name: "a probable match needs a similar description, the same direction and at most three days",
		rows: []ImportRow{
			fileRow(2, "2026-11-06", "2500.00", DirectionDebit, "PLDT", ""),
			fileRow(3, "2026-11-09", "2500.00", DirectionDebit, "Meralco", ""),
			fileRow(4, "2026-11-06", "2500.00", DirectionCredit, "Meralco refund", ""),
			fileRow(5, "2026-11-08", "2500.00", DirectionDebit, "meralco!", ""),
		},
		ledger: typed,
		want:   []string{"2:-", "3:-", "4:-", "5:probable:meralco"},
	}, {
		name: "a record matched exactly is not matched again as probable",
		rows: []ImportRow{
			fileRow(2, "2026-11-02", "150.00", DirectionDebit, "Coffee", ""),
			fileRow(3, "2026-11-03", "150.00", DirectionDebit, "Coffee", ""),
		},
		ledger: typed,
		want:   []string{"2:exact:coffee", "3:-"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			matchRows(tc.rows, tc.ledger, tc.bankIDs)
			if diff := cmp.Diff(tc.want, matches(tc.rows)); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSimilar(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"MERALCO BILLS PAYMENT", "Meralco", true},
		{"Coffee", "STARBUCKS COFFEE", true},
		{"SM Megamall", "SM Aura", false}, // "sm" is shorter than four letters
		{"Grab*Food", "grab food", true},
		{"", "Coffee", false},
	} {
		if got := similar(tc.a, tc.b); got != tc.want {
			t.Errorf("similar(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestMoveCycleStartDate(t *testing.T) {
	// domain.md's worked example: statement day 15, the earliest charge on
	// 09-03; the statement date before it is 08-15.
	for _, tc := range []struct{ earliest, want string }{
		{"2026-09-03", "2026-08-16"},
		{"2026-09-15", "2026-08-16"},
		{"2026-09-16", "2026-09-16"},
	} {
		if got := cycleStartFor(15, day(tc.earliest)); got != day(tc.want) {
			t.Errorf("cycleStartFor(15, %s) = %s, want %s", tc.earliest, got, tc.want)
		}
	}
}

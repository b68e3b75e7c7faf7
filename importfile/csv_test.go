package importfile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadCSVFixtures(t *testing.T) {
	type want struct {
		preset, encoding, dateFormat, decimal, currency string
		mapping                                         Mapping
		rows                                            func(t *testing.T) []Row
		errors                                          []RowError
	}
	tests := []struct {
		file string
		opt  Options
		want want
	}{
		{
			// A Philippine savings account: account details above the header,
			// DD/MM/YYYY, "1,234.56", debit and credit columns, a quoted
			// description over two lines, CRLF.
			file: "bpi-savings.csv",
			want: want{preset: "generic", encoding: "utf-8", dateFormat: "DD/MM/YYYY", decimal: ".",
				mapping: Mapping{Date: "Transaction Date", Debit: "Debit", Credit: "Credit", Description: "Description",
					Delimiter: ",", Header: ptrTo(true), SkipLines: 4},
				rows: func(t *testing.T) []Row {
					return []Row{
						{Line: 6, Date: date(t, "2026-01-02"), Amount: 123456, Direction: Debit, Description: "POS PURCHASE SM SUPERMARKET MAKATI"},
						{Line: 7, Date: date(t, "2026-01-05"), Amount: 500000, Direction: Credit, Description: "INSTAPAY TRANSFER FROM MARIA SANTOS"},
						{Line: 8, Date: date(t, "2026-01-15"), Amount: 245000, Direction: Debit, Description: "BILLS PAYMENT MERALCO REF 000123"},
						{Line: 10, Date: date(t, "2026-01-15"), Amount: 3500000, Direction: Credit, Description: "SALARY CREDIT ACME PHILS INC"},
						{Line: 11, Date: date(t, "2026-01-31"), Amount: 123, Direction: Credit, Description: "INTEREST EARNED"},
						{Line: 12, Date: date(t, "2026-01-31"), Amount: 25, Direction: Debit, Description: "WITHHOLDING TAX"},
					}
				}},
		},
		{
			// A card statement: a positive amount is a charge, so the mapping
			// negates; "PHP 1,234.50", "-PHP 10,000.00", "(450.00)".
			file: "bdo-card.csv",
			opt:  Options{Mapping: &Mapping{Negate: true}},
			want: want{preset: "generic", encoding: "utf-8", dateFormat: "MM/DD/YYYY", decimal: ".",
				mapping: Mapping{Date: "Posting Date", Amount: "Amount", Description: "Description", Negate: true, Delimiter: ",", Header: ptrTo(true)},
				rows: func(t *testing.T) []Row {
					return []Row{
						{Line: 2, Date: date(t, "2025-12-29"), Amount: 123450, Direction: Debit, Description: "GRAB* A-1234567 MAKATI"},
						{Line: 3, Date: date(t, "2026-01-04"), Amount: 299900, Direction: Debit, Description: "LAZADA PH ORDER 8812"},
						{Line: 4, Date: date(t, "2026-01-10"), Amount: 1000000, Direction: Credit, Description: "PAYMENT - THANK YOU"},
						{Line: 5, Date: date(t, "2026-01-16"), Amount: 45000, Direction: Credit, Description: "SHOPEE REFUND"},
					}
				}},
		},
		{
			// A German bank: ";" cells, "1.234,56", DD.MM.YYYY, windows-1252 umlauts.
			file: "sparkasse.csv",
			want: want{preset: "generic", encoding: "windows-1252", dateFormat: "DD.MM.YYYY", decimal: ",", currency: "EUR",
				mapping: Mapping{Date: "Buchungstag", Amount: "Betrag", Description: "Verwendungszweck", Payee: "Auftraggeber/Empfänger",
					Currency: "Währung", Delimiter: ";", Header: ptrTo(true)},
				rows: func(t *testing.T) []Row {
					return []Row{
						{Line: 2, Date: date(t, "2025-12-30"), Amount: 123456, Direction: Debit, Description: "Stromabschlag Dezember Vertrag 4711", Payee: "Stadtwerke München GmbH", Currency: "EUR"},
						{Line: 3, Date: date(t, "2026-01-02"), Amount: 345000, Direction: Credit, Description: "Gehalt Januar", Payee: "Müller & Söhne KG", Currency: "EUR"},
						{Line: 4, Date: date(t, "2026-01-05"), Amount: 480, Direction: Debit, Description: "Bäckerei Größer Filiale 12", Payee: "Bäckerei Größer", Currency: "EUR"},
						{Line: 5, Date: date(t, "2026-01-07"), Amount: 500, Direction: Debit, Description: "Kontoführung", Currency: "EUR"},
					}
				}},
		},
		{
			// Firefly III: the type and the sign agree; the payee of a
			// withdrawal is its destination, of a deposit its source.
			file: "firefly-export.csv",
			want: want{preset: "firefly", encoding: "utf-8", dateFormat: "YYYY-MM-DD", decimal: ".", currency: "PHP",
				mapping: Mapping{Date: "date", Amount: "amount", Description: "description", Payee: "destination_name", PayeeIn: "source_name",
					Category: "category", Reference: "journal_id", Type: "type", Currency: "currency_code", Delimiter: ",", Header: ptrTo(true)},
				rows: func(t *testing.T) []Row {
					return []Row{
						{Line: 2, Date: date(t, "2026-01-03"), Amount: 84550, Direction: Debit, Description: "Groceries at Puregold", Payee: "Puregold Libis", Category: "Groceries", BankID: "151", Currency: "PHP"},
						{Line: 3, Date: date(t, "2026-01-15"), Amount: 3500000, Direction: Credit, Description: "January salary", Payee: "ACME Phils Inc", Category: "Salary", BankID: "152", Currency: "PHP"},
						{Line: 4, Date: date(t, "2026-01-20"), Amount: 500000, Direction: Debit, Description: "To GCash wallet", Payee: "GCash", BankID: "153", Currency: "PHP"},
					}
				}},
		},
		{
			file: "actual-export.csv",
			want: want{preset: "actual", encoding: "utf-8", dateFormat: "YYYY-MM-DD", decimal: ".",
				mapping: Mapping{Date: "Date", Amount: "Amount", Description: "Notes", Payee: "Payee", Category: "Category", Delimiter: ",", Header: ptrTo(true)},
				rows: func(t *testing.T) []Row {
					return []Row{
						{Line: 2, Date: date(t, "2026-01-03"), Amount: 84550, Direction: Debit, Description: "weekly groceries", Payee: "Puregold", Category: "Food"},
						{Line: 3, Date: date(t, "2026-01-15"), Amount: 3500000, Direction: Credit, Description: "ACME Phils Inc", Payee: "ACME Phils Inc", Category: "Income"},
						{Line: 4, Date: date(t, "2026-01-21"), Amount: 28900, Direction: Debit, Description: "Jollibee", Payee: "Jollibee", Category: "Eating out"},
					}
				}},
		},
		{
			// YNAB: a UTF-8 BOM, quoted header, "$84.12" outflows and inflows.
			// Its dates are all ambiguous; YNAB's own MM/DD/YYYY settles them.
			file: "ynab-register.csv",
			want: want{preset: "ynab", encoding: "utf-8", dateFormat: "MM/DD/YYYY", decimal: ".",
				mapping: Mapping{Date: "Date", Debit: "Outflow", Credit: "Inflow", Description: "Memo", Payee: "Payee", Category: "Category", Delimiter: ",", Header: ptrTo(true)},
				rows: func(t *testing.T) []Row {
					return []Row{
						{Line: 2, Date: date(t, "2026-01-02"), Amount: 8412, Direction: Debit, Description: "Safeway", Payee: "Safeway", Category: "Groceries"},
						{Line: 3, Date: date(t, "2026-01-05"), Amount: 240000, Direction: Credit, Description: "Paycheck", Payee: "Employer Inc", Category: "Ready to Assign"},
						{Line: 4, Date: date(t, "2026-01-06"), Amount: 50000, Direction: Debit, Description: "Transfer : Savings", Payee: "Transfer : Savings"},
					}
				}},
		},
		{
			// ezbookkeeping: unsigned amounts, the Type decides; a Balance
			// Modification keeps its sign.
			file: "ezbookkeeping-export.csv",
			want: want{preset: "ezbookkeeping", encoding: "utf-8", dateFormat: "YYYY-MM-DD", decimal: ".", currency: "PHP",
				mapping: Mapping{Date: "Time", Amount: "Amount", Description: "Description", Category: "Sub Category", Type: "Type", Currency: "Account Currency", Delimiter: ",", Header: ptrTo(true)},
				rows: func(t *testing.T) []Row {
					return []Row{
						{Line: 2, Date: date(t, "2026-01-03"), Amount: 84550, Direction: Debit, Description: "Puregold Libis", Category: "Groceries", Currency: "PHP"},
						{Line: 3, Date: date(t, "2026-01-15"), Amount: 3500000, Direction: Credit, Description: "January salary", Category: "Salary", Currency: "PHP"},
						{Line: 4, Date: date(t, "2026-01-20"), Amount: 500000, Direction: Debit, Description: "To GCash", Category: "Bank Transfer", Currency: "PHP"},
						{Line: 5, Date: date(t, "2026-01-31"), Amount: 1200, Direction: Debit, Description: "Correction", Category: "Modify Balance", Currency: "PHP"},
					}
				}},
		},
		{
			// This app's expenses download: positive amounts are money out.
			file: "finance-expenses.csv",
			want: want{preset: "finance", encoding: "utf-8", dateFormat: "YYYY-MM-DD", decimal: ".",
				mapping: Mapping{Date: "date", Amount: "amount", Negate: true, Description: "description", Category: "category", Reference: "id", Delimiter: ",", Header: ptrTo(true)},
				rows: func(t *testing.T) []Row {
					return []Row{
						{Line: 2, Date: date(t, "2026-01-03"), Amount: 84550, Direction: Debit, Description: "Groceries at Puregold", Category: "Food", BankID: "0194a3b2-7c1d-7e22-9f00-1a2b3c4d5e6f"},
						{Line: 3, Date: date(t, "2026-01-05"), Amount: 245000, Direction: Debit, Description: "Meralco bill", Category: "Split", BankID: "0194a3b2-7c1d-7e22-9f00-1a2b3c4d5e70"},
					}
				}},
		},
		{
			// This app's income download: money in.
			file: "finance-income.csv",
			want: want{preset: "finance", encoding: "utf-8", dateFormat: "YYYY-MM-DD", decimal: ".",
				mapping: Mapping{Date: "date", Amount: "amount", Description: "description", Category: "category", Reference: "id", Delimiter: ",", Header: ptrTo(true)},
				rows: func(t *testing.T) []Row {
					return []Row{
						{Line: 2, Date: date(t, "2026-01-15"), Amount: 3500000, Direction: Credit, Description: "January salary", Category: "Salary", BankID: "0194a3b2-bbbb-7e22-9f00-1a2b3c4d5e71"},
					}
				}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res := readOK(t, tt.file, fixture(t, tt.file), tt.opt)
			got := want{preset: res.Preset, encoding: res.Encoding, dateFormat: res.DateFormat, decimal: res.DecimalSeparator, currency: res.Currency}
			w := tt.want
			if res.Format != CSV || got.preset != w.preset || got.encoding != w.encoding || got.dateFormat != w.dateFormat || got.decimal != w.decimal || got.currency != w.currency {
				t.Errorf("format %s preset %q encoding %q date %q decimal %q currency %q; want csv %q %q %q %q %q",
					res.Format, got.preset, got.encoding, got.dateFormat, got.decimal, got.currency, w.preset, w.encoding, w.dateFormat, w.decimal, w.currency)
			}
			if diff := cmp.Diff(&w.mapping, res.Mapping); diff != "" {
				t.Errorf("mapping (-want +got):\n%s", diff)
			}
			checkRows(t, res, w.rows(t), w.errors)
		})
	}
}

// TestReadCSVRowErrors: each bad row names its line and what is wrong in
// words, and the good rows around it still read.
func TestReadCSVRowErrors(t *testing.T) {
	csv := "Date,Description,Amount\n" +
		"15/01/2026,Good one,-12.50\n" +
		"31/02/2026,No such day,-1.00\n" +
		"16/01/2026,Bad grouping,\"12,3.4\"\n" +
		"17/01/2026,Too precise,1.234\n" +
		"18/01/2026,Nothing,0.00\n" +
		"19/01/2026,No amount,\n" +
		",No date,5\n" +
		"20/01/2026,Huge,1000000000.00\n" +
		"21/01/2026,Trailing zeros,7.500\n"
	res := readOK(t, "bank.csv", []byte(csv), Options{})
	checkRows(t, res, []Row{
		{Line: 2, Date: date(t, "2026-01-15"), Amount: 1250, Direction: Debit, Description: "Good one"},
		{Line: 10, Date: date(t, "2026-01-21"), Amount: 750, Direction: Credit, Description: "Trailing zeros"},
	}, []RowError{
		{Line: 3, Message: `date "31/02/2026" is not a date in DD/MM/YYYY`},
		{Line: 4, Message: `amount "12,3.4" is not a number`},
		{Line: 5, Message: `amount "1.234" has more than 2 decimal places`},
		{Line: 6, Message: `amount "0.00" is zero`},
		{Line: 7, Message: `the amount is empty`},
		{Line: 8, Message: `the date is empty`},
		{Line: 9, Message: `amount "1000000000.00" is larger than 999,999,999.99`},
	})
}

func TestReadCSVDebitCreditProblems(t *testing.T) {
	csv := "Date,Details,Withdrawal,Deposit\n" +
		"2026-01-02,Both,5.00,6.00\n" +
		"2026-01-03,Neither,,\n" +
		"2026-01-04,Zero withdrawal,0.00,7.00\n" +
		"2026-01-05,Bad,abc,\n"
	res := readOK(t, "bank.csv", []byte(csv), Options{})
	checkRows(t, res, []Row{
		{Line: 4, Date: date(t, "2026-01-04"), Amount: 700, Direction: Credit, Description: "Zero withdrawal"},
	}, []RowError{
		{Line: 2, Message: "both the debit and the credit column have an amount"},
		{Line: 3, Message: "neither the debit nor the credit column has an amount"},
		{Line: 5, Message: `debit "abc" is not a number`},
	})
}

// TestReadCSVDetection: the delimiter, the decimal separator and the date
// format are found from the values, whatever the layout.
func TestReadCSVDetection(t *testing.T) {
	tests := []struct {
		name, csv             string
		delimiter, dec, dates string
		amount                int64
	}{
		{"tab, comma decimal, dotted dates", "Datum\tBetrag\tBuchungstext\n31.01.2026\t-1.234,56\tMiete\n", "\t", ",", "DD.MM.YYYY", 123456},
		{"pipe, month first", "Date|Amount|Memo\n01/31/2026|-5.00|Coffee\n", "|", ".", "MM/DD/YYYY", 500},
		{"semicolon, comma decimal without grouping", "Date;Amount;Memo\n2026-01-31;-5,5;Coffee\n", ";", ",", "YYYY-MM-DD", 550},
		{"quoted commas", "Date,Amount,Memo\n\"31 Jan 2026\",\"-1,234.56\",\"Rent, January\"\n", ",", ".", "D MMM YYYY", 123456},
		{"compact dates", "Date,Amount,Memo\n20260131,-5.00,Coffee\n", ",", ".", "YYYYMMDD", 500},
		{"month names with dashes", "Date,Amount,Memo\n05-Jan-2026,-5.00,Coffee\n", ",", ".", "DD-MMM-YYYY", 500},
		{"dates with times", "Date,Amount,Memo\n2026-01-31 14:22:05,-5.00,Coffee\n", ",", ".", "YYYY-MM-DD", 500},
		{"swiss grouping", "Date,Amount,Memo\n2026-01-31,-1'234.50,Rent\n", ",", ".", "YYYY-MM-DD", 123450},
		{"DR suffix", "Date,Amount,Memo\n2026-01-31,1234.50 DR,Rent\n", ",", ".", "YYYY-MM-DD", 123450},
		{"currency code after", "Date;Amount;Memo\n2026-01-31;-1.234,50 EUR;Rent\n", ";", ",", "YYYY-MM-DD", 123450},
		{"peso sign", "Date,Amount,Memo\n2026-01-31,-₱1234.50,Rent\n", ",", ".", "YYYY-MM-DD", 123450},
		{"lone CR line ends", "Date,Amount,Memo\r2026-01-31,-5.00,Coffee\r", ",", ".", "YYYY-MM-DD", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readOK(t, "x.csv", []byte(tt.csv), Options{})
			if res.Mapping.Delimiter != tt.delimiter || res.DecimalSeparator != tt.dec || res.DateFormat != tt.dates {
				t.Errorf("delimiter %q decimal %q dates %q; want %q %q %q", res.Mapping.Delimiter, res.DecimalSeparator, res.DateFormat, tt.delimiter, tt.dec, tt.dates)
			}
			if len(res.Errors) != 0 || len(res.Rows) != 1 {
				t.Fatalf("rows %+v errors %+v; want one row", res.Rows, res.Errors)
			}
			if r := res.Rows[0]; int64(r.Amount) != tt.amount || r.Direction != Debit || r.Line != 2 || r.Date != date(t, "2026-01-31") && r.Date != date(t, "2026-01-05") {
				t.Errorf("row %+v; want %d debit on line 2", r, tt.amount)
			}
		})
	}
}

// TestReadCSVAmbiguousDates: when no date tells day-first from
// month-first, a generic file is refused naming the date format option,
// and a date format given reads it.
func TestReadCSVAmbiguousDates(t *testing.T) {
	csv := []byte("Date,Amount,Description\n01/02/2026,-5.00,Coffee\n03/04/2026,-6.00,Tea\n")
	e := readFails(t, "bank.csv", csv, Options{})
	want := &Error{Field: "date_format", Message: `dates such as "01/02/2026" read as DD/MM/YYYY or MM/DD/YYYY alike, and no date in the file tells which; set the date format`}
	checkError(t, want, e)
	res := readOK(t, "bank.csv", csv, Options{DateFormat: "DD/MM/YYYY"})
	checkRows(t, res, []Row{
		{Line: 2, Date: date(t, "2026-02-01"), Amount: 500, Direction: Debit, Description: "Coffee"},
		{Line: 3, Date: date(t, "2026-04-03"), Amount: 600, Direction: Debit, Description: "Tea"},
	}, nil)
	// One date past the 12th settles the whole file.
	res = readOK(t, "bank.csv", append(csv, "25/04/2026,-7.00,Cake\n"...), Options{})
	if res.DateFormat != "DD/MM/YYYY" || len(res.Rows) != 3 {
		t.Errorf("date format %q rows %d; want DD/MM/YYYY and 3", res.DateFormat, len(res.Rows))
	}
}

// TestReadCSVMapping: a mapping given by the caller (by names or column
// numbers) is used as it is, and a mapping that does not fit the file is
// an error naming the mapping and listing the columns.
func TestReadCSVMapping(t *testing.T) {
	csv := []byte("Posted,Text,Value,Ref\n2026-01-31,Coffee,-5.00,A1\n")
	res := readOK(t, "bank.csv", csv, Options{Mapping: &Mapping{Date: "posted", Amount: "3", Description: "TEXT", Reference: "Ref"}})
	checkRows(t, res, []Row{{Line: 2, Date: date(t, "2026-01-31"), Amount: 500, Direction: Debit, Description: "Coffee", BankID: "A1"}}, nil)
	if res.Preset != "" || strings.Join(res.Columns, "|") != "Posted|Text|Value|Ref" {
		t.Errorf("preset %q columns %q; want none and the header", res.Preset, res.Columns)
	}

	e := readFails(t, "bank.csv", csv, Options{Mapping: &Mapping{Date: "Posted", Amount: "Betrag"}})
	want := &Error{Field: "mapping", Message: `amount column "Betrag" is not in the file's header; the columns are: Posted, Text, Value, Ref`,
		Columns: []string{"Posted", "Text", "Value", "Ref"}}
	checkError(t, want, e)
	e = readFails(t, "bank.csv", csv, Options{})
	want = &Error{Field: "mapping", Message: "no date and amount columns were recognised; map them by name. The columns are: Posted, Text, Value, Ref",
		Columns: []string{"Posted", "Text", "Value", "Ref"}}
	checkError(t, want, e)

	// No header: columns by number; without a mapping, an error saying so.
	bare := []byte("2026-01-31;Coffee;-5,00\n2026-02-01;Tea;-1,50\n")
	res = readOK(t, "bank.csv", bare, Options{Mapping: &Mapping{Date: "1", Description: "2", Amount: "3"}})
	checkRows(t, res, []Row{
		{Line: 1, Date: date(t, "2026-01-31"), Amount: 500, Direction: Debit, Description: "Coffee"},
		{Line: 2, Date: date(t, "2026-02-01"), Amount: 150, Direction: Debit, Description: "Tea"},
	}, nil)
	if *res.Mapping.Header || res.Mapping.Delimiter != ";" {
		t.Errorf("mapping %+v; want no header and ';'", res.Mapping)
	}
	e = readFails(t, "bank.csv", []byte("2026-01-31;Coffee;abc\n"), Options{})
	if e.Field != "mapping" || e.Message != "the file has no header row and its date and amount columns could not be told apart; map its columns by number (date, amount or debit and credit, description). The first row is: 2026-01-31 | Coffee | abc" {
		t.Errorf("error %+v; want the mapping named for a file with no header", e)
	}
	e = readFails(t, "bank.csv", bare, Options{Mapping: &Mapping{Date: "1", Amount: "7"}})
	if e.Field != "mapping" || !strings.Contains(e.Message, "amount column 7 is not in the file, which has 3 columns") {
		t.Errorf("error %+v; want the missing column 7 named", e)
	}

	// Lines to skip and a header stated.
	skipped := []byte("Statement of account\nDate,Amount\n2026-01-31,9.99\n")
	res = readOK(t, "bank.csv", skipped, Options{Mapping: &Mapping{SkipLines: 1, Header: ptrTo(true), Date: "Date", Amount: "Amount"}})
	checkRows(t, res, []Row{{Line: 3, Date: date(t, "2026-01-31"), Amount: 999, Direction: Credit}}, nil)
}

// TestReadCSVNegateBesidePreset: a caller's negate for this app's expense
// download keeps its expenses money out rather than undoing the preset's.
func TestReadCSVNegateBesidePreset(t *testing.T) {
	res := readOK(t, "finance-expenses.csv", fixture(t, "finance-expenses.csv"), Options{Mapping: &Mapping{Negate: true}})
	if res.Preset != "finance" || len(res.Rows) != 2 || res.Rows[0].Direction != Debit || res.Rows[1].Direction != Debit {
		t.Errorf("preset %q rows %+v; want two expenses as money out", res.Preset, res.Rows)
	}
}

// TestReadCSVWithoutHeader: a file with no header is mapped by its cells,
// and the mapping by number is reported for the caller to show.
func TestReadCSVWithoutHeader(t *testing.T) {
	tests := []struct {
		name, csv string
		mapping   Mapping
		rows      func(t *testing.T) []Row
	}{
		{
			name:    "signed amount and a running balance",
			csv:     "31/01/2026,\"GRAB FOOD, MAKATI\",-245.00,\"10,000.00\"\n30/01/2026,SALARY,\"35,000.00\",\"10,245.00\"\n",
			mapping: Mapping{Date: "1", Description: "2", Amount: "3", Delimiter: ",", Header: ptrTo(false)},
			rows: func(t *testing.T) []Row {
				return []Row{
					{Line: 1, Date: date(t, "2026-01-31"), Amount: 24500, Direction: Debit, Description: "GRAB FOOD, MAKATI"},
					{Line: 2, Date: date(t, "2026-01-30"), Amount: 3500000, Direction: Credit, Description: "SALARY"},
				}
			},
		},
		{
			name:    "debit and credit columns",
			csv:     "2026-01-31;Miete;1.234,56;;5.000,00\n2026-01-30;Gehalt;;3.450,00;6.234,56\n",
			mapping: Mapping{Date: "1", Description: "2", Debit: "3", Credit: "4", Delimiter: ";", Header: ptrTo(false)},
			rows: func(t *testing.T) []Row {
				return []Row{
					{Line: 1, Date: date(t, "2026-01-31"), Amount: 123456, Direction: Debit, Description: "Miete"},
					{Line: 2, Date: date(t, "2026-01-30"), Amount: 345000, Direction: Credit, Description: "Gehalt"},
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readOK(t, "bank.csv", []byte(tt.csv), Options{})
			if diff := cmp.Diff(&tt.mapping, res.Mapping); diff != "" {
				t.Errorf("mapping (-want +got):\n%s", diff)
			}
			checkRows(t, res, tt.rows(t), nil)
			if res.Preset != "" || res.Columns != nil {
				t.Errorf("preset %q columns %q; want none for a file without a header", res.Preset, res.Columns)
			}
		})
	}
}

// TestReadCSVTypeColumn: a generic file's Dr/Cr column decides the way of
// unsigned amounts.
func TestReadCSVTypeColumn(t *testing.T) {
	csv := []byte("Date,Description,Amount,Dr/Cr\n2026-01-30,ATM withdrawal,500.00,DR\n2026-01-31,Salary,900.00,CR\n")
	res := readOK(t, "bank.csv", csv, Options{})
	checkRows(t, res, []Row{
		{Line: 2, Date: date(t, "2026-01-30"), Amount: 50000, Direction: Debit, Description: "ATM withdrawal"},
		{Line: 3, Date: date(t, "2026-01-31"), Amount: 90000, Direction: Credit, Description: "Salary"},
	}, nil)
}

// TestReadCSVMappingRoundTrip: the mapping a read reports, saved and given
// back with the formats it reports, reads the same rows, as a saved mapping
// per account must.
func TestReadCSVMappingRoundTrip(t *testing.T) {
	for _, file := range []string{"bpi-savings.csv", "bdo-card.csv", "sparkasse.csv", "firefly-export.csv", "actual-export.csv",
		"ynab-register.csv", "ezbookkeeping-export.csv", "finance-expenses.csv", "finance-income.csv"} {
		t.Run(file, func(t *testing.T) {
			opt := Options{}
			if file == "bdo-card.csv" {
				opt.Mapping = &Mapping{Negate: true}
			}
			first := readOK(t, file, fixture(t, file), opt)
			saved := *first.Mapping
			again := readOK(t, file, fixture(t, file), Options{Mapping: &saved, DateFormat: first.DateFormat, DecimalSeparator: first.DecimalSeparator})
			checkRows(t, again, first.Rows, first.Errors)
			if diff := cmp.Diff(first.Mapping, again.Mapping); diff != "" {
				t.Errorf("mapping (-first +again):\n%s", diff)
			}
		})
	}
}

package importfile

import (
	"slices"
	"strings"
)

// qifRecord is one transaction of a QIF file, up to its "^".
type qifRecord struct {
	line                                     int
	date, amount, payee, memo, category, num string
}

// qifTransactionTypes are the sections whose records are transactions of
// one account; the rest (!Type:Cat, !Type:Class, !Account, !Option,
// investments) are skipped.
var qifTransactionTypes = []string{"bank", "cash", "ccard", "oth a", "oth l"}

// readQIF reads a QIF file. Its dates have no fixed format ("01/15/2026",
// "1/15'26", "15.01.2026"), so the format is detected over all of them.
// The T amount is the transaction's total; split lines (S, E, $) are not
// rows of their own.
func readQIF(text string, opt Options) (*Result, error) {
	if err := checkLineLengths(text); err != nil {
		return nil, err
	}
	var records []qifRecord
	rows := rowCounter{max: opt.MaxRows}
	inTransactions := false
	var cur *qifRecord
	for n, l := range strings.Split(text, "\n") {
		line := n + 1
		l = strings.TrimRight(l, " \t")
		if l == "" {
			continue
		}
		if l[0] == '!' {
			head := strings.ToLower(l)
			if t, ok := strings.CutPrefix(head, "!type:"); ok {
				inTransactions = slices.Contains(qifTransactionTypes, strings.TrimSpace(t))
			} else if head != "!clear:autoswitch" && head != "!option:autoswitch" {
				inTransactions = false // !Account and the like describe, they do not list
			}
			cur = nil
			continue
		}
		if !inTransactions {
			continue
		}
		if l[0] == '^' {
			if cur != nil {
				records = append(records, *cur)
			}
			cur = nil
			continue
		}
		if cur == nil {
			if err := rows.add(line); err != nil {
				return nil, err
			}
			cur = &qifRecord{line: line}
		}
		value := strings.TrimSpace(l[1:])
		switch l[0] {
		case 'D':
			cur.date = value
		case 'T', 'U':
			if cur.amount == "" || l[0] == 'T' {
				cur.amount = value
			}
		case 'P':
			cur.payee = clean(value)
		case 'M':
			cur.memo = clean(value)
		case 'L':
			// A category in brackets is a transfer to that account.
			cur.category = clean(value)
		case 'N':
			cur.num = value
		}
	}
	if cur != nil {
		records = append(records, *cur) // the last record's "^" is often missing
	}
	if len(records) == 0 && !strings.Contains(strings.ToLower(text), "!type:") {
		return nil, fileError(1, "the file has no !Type: line, so it is not a QIF file")
	}

	res := &Result{}
	dates, amounts := make([]string, 0, len(records)), make([]string, 0, len(records))
	for _, r := range records {
		if r.date != "" {
			dates = append(dates, qifDate(r.date))
		}
		amounts = append(amounts, r.amount)
	}
	layout, err := chooseLayout(dates, opt.DateFormat, "")
	if err != nil {
		if len(records) == 0 {
			return res, nil
		}
		return nil, err
	}
	dec := chooseDecimal(amounts, opt.DecimalSeparator)
	res.DateFormat, res.DecimalSeparator = layout.name, string(dec)
	for _, r := range records {
		row := Row{Line: r.line, Payee: r.payee, Category: r.category}
		d, ok := layout.parse(qifDate(r.date))
		if !ok {
			res.Errors = append(res.Errors, RowError{Line: r.line, Message: dateProblem(r.date, layout)})
			continue
		}
		row.Date = d
		if r.amount == "" {
			res.Errors = append(res.Errors, RowError{Line: r.line, Message: "the transaction has no T line (amount)"})
			continue
		}
		amount, neg, err := rowAmount(r.amount, dec)
		if err != nil {
			res.Errors = append(res.Errors, RowError{Line: r.line, Message: amountProblem("amount", r.amount, err)})
			continue
		}
		row.Amount, row.Direction = amount.Abs(), signed(neg)
		row.Description = firstNonEmpty(r.memo, r.payee, r.category)
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// qifDate writes Quicken's year marks the common way: the apostrophe
// marks a year of the 2000s ("1/15'26" is "1/15/2026"), and the blanks
// of " 1/ 5/26" go.
func qifDate(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	if md, yy, ok := strings.Cut(s, "'"); ok && len(yy) == 2 && allDigits(yy) {
		return md + "/20" + yy
	}
	return s
}

// chooseLayout is the named date format, or the one detected from the values.
func chooseLayout(values []string, named, preferred string) (dateLayout, error) {
	if named != "" {
		l, _ := layoutNamed(named)
		return l, nil
	}
	return detectDateLayout(values, preferred)
}

// chooseDecimal is the given decimal separator, or the one detected from the amounts.
func chooseDecimal(values []string, given string) byte {
	if given != "" {
		return given[0]
	}
	return detectDecimal(values)
}

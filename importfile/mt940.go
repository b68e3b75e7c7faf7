package importfile

import (
	"strings"
	"time"

	"github.com/finance-app/finance/finance"
)

// mt940Field is one ":tag:" field with its continuation lines.
type mt940Field struct {
	tag   string
	line  int
	lines []string
}

// readMT940 reads a SWIFT MT940 statement: one row per :61: statement
// line, described by the :86: that follows it. The :61: amount is written
// with a decimal comma and no sign; its mark (C, D, and RC, RD for
// reversals) says the way. The row's date is the entry (booking) date
// when the line gives one, else the value date.
func readMT940(text string, opt Options) (*Result, error) {
	if err := checkLineLengths(text); err != nil {
		return nil, err
	}
	var fields []mt940Field
	for n, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t")
		// The SWIFT envelope: "{1:...}{2:...}{4:" before block 4, "-}" after.
		if i := strings.Index(l, "{4:"); i >= 0 {
			l = l[i+3:]
		}
		if l == "" || l == "-}" || l == "-" || strings.HasPrefix(l, "{5:") {
			continue
		}
		if tag, rest, ok := mt940Tag(l); ok {
			fields = append(fields, mt940Field{tag: tag, line: n + 1, lines: []string{rest}})
			continue
		}
		if len(fields) > 0 {
			fields[len(fields)-1].lines = append(fields[len(fields)-1].lines, l)
		}
	}
	res := &Result{}
	if len(fields) == 0 {
		return nil, fileError(1, "the file has no :20: or :61: fields, so it is not an MT940 statement")
	}
	rows := rowCounter{max: opt.MaxRows}
	currency := ""
	for i, f := range fields {
		switch f.tag {
		case "60F", "60M":
			if len(f.lines[0]) >= 10 {
				currency = strings.ToUpper(f.lines[0][7:10])
				if res.Currency == "" {
					res.Currency = currency
				}
			}
		case "61":
			if err := rows.add(f.line); err != nil {
				return nil, err
			}
			var info []string
			if i+1 < len(fields) && fields[i+1].tag == "86" {
				info = fields[i+1].lines
			}
			row, problem := mt940Row(f, info, currency)
			if problem != "" {
				res.Errors = append(res.Errors, RowError{Line: f.line, Message: problem})
				continue
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res, nil
}

// mt940Tag splits ":61:rest" into "61" and "rest".
func mt940Tag(l string) (string, string, bool) {
	if len(l) < 4 || l[0] != ':' {
		return "", "", false
	}
	end := strings.IndexByte(l[1:], ':')
	if end < 2 || end > 3 {
		return "", "", false
	}
	tag := l[1 : end+1]
	if !allDigits(tag[:2]) {
		return "", "", false
	}
	return tag, l[end+2:], true
}

// mt940Row reads a :61: line: value date YYMMDD, optional entry date MMDD,
// mark, optional funds code, amount, transaction type (N, F or S and three
// characters), the account owner's reference, then "//" and the bank's.
func mt940Row(f mt940Field, info []string, currency string) (Row, string) {
	s := f.lines[0]
	row := Row{Line: f.line, Currency: currency}
	if len(s) < 6 || !allDigits(s[:6]) {
		return row, ":61: does not start with a value date in YYMMDD: " + quote(s)
	}
	value, ok := yymmdd(s[:6])
	if !ok {
		return row, "value date " + quote(s[:6]) + " is not a date in YYMMDD"
	}
	row.Date, s = value, s[6:]
	if len(s) >= 4 && allDigits(s[:4]) {
		entry, ok := entryDate(value, s[:4])
		if !ok {
			return row, "entry date " + quote(s[:4]) + " is not a date in MMDD"
		}
		row.Date, s = entry, s[4:]
	}
	switch {
	case strings.HasPrefix(s, "RC"):
		row.Direction, s = Debit, s[2:] // the reversal of a credit takes the money back out
	case strings.HasPrefix(s, "RD"):
		row.Direction, s = Credit, s[2:]
	case strings.HasPrefix(s, "C"):
		row.Direction, s = Credit, s[1:]
	case strings.HasPrefix(s, "D"):
		row.Direction, s = Debit, s[1:]
	default:
		return row, ":61: has no C or D mark after its dates: " + quote(f.lines[0])
	}
	if len(s) > 0 && isLetter(s[0]) {
		s = s[1:] // the funds code: the third letter of the currency code
	}
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == ',') {
		end++
	}
	amountText := s[:end]
	amount, _, err := rowAmount(amountText, ',')
	if err != nil {
		return row, amountProblem("amount", amountText, err)
	}
	row.Amount, s = amount, s[end:]
	if len(s) >= 4 {
		s = s[4:] // the transaction type, such as NTRF or NMSC
	}
	ownerRef, bankRef, _ := strings.Cut(s, "//")
	row.BankID = strings.TrimSpace(bankRef)
	description, payee := mt940Info(info)
	row.Payee = payee
	supplementary := ""
	if len(f.lines) > 1 {
		supplementary = clean(strings.Join(f.lines[1:], " "))
	}
	if strings.EqualFold(strings.TrimSpace(ownerRef), "NONREF") {
		ownerRef = ""
	}
	row.Description = firstNonEmpty(description, supplementary, payee, clean(ownerRef))
	return row, ""
}

// mt940Info reads a :86: field. Many banks structure it in "?NN"
// subfields (the German and Dutch usage: ?00 posting text, ?20-?29 and
// ?60-?63 the purpose, ?32-?33 the counterparty's name); others write
// free text over several lines.
func mt940Info(lines []string) (description, payee string) {
	text := strings.Join(lines, "")
	if !strings.Contains(text, "?2") && !strings.Contains(text, "?00") {
		return clean(strings.Join(lines, " ")), ""
	}
	var purpose, name []string
	posting := ""
	for _, part := range strings.Split(text, "?")[1:] {
		if len(part) < 2 || !allDigits(part[:2]) {
			continue
		}
		code, value := part[:2], part[2:]
		switch {
		case code == "00":
			posting = value
		case code >= "20" && code <= "29", code >= "60" && code <= "63":
			purpose = append(purpose, value) // untrimmed: a blank may be all that parts two words
		case code == "32" || code == "33":
			name = append(name, value)
		}
	}
	return firstNonEmpty(sepaPurpose(strings.Join(purpose, "")), clean(strings.Join(purpose, " ")), clean(posting)), clean(strings.Join(name, ""))
}

// sepaTags are the keywords of a SEPA purpose in a :86: (EREF+ the
// end-to-end reference, SVWZ+ the remittance text, ...).
var sepaTags = []string{"EREF+", "KREF+", "MREF+", "CRED+", "DEBT+", "SVWZ+", "ABWA+", "ABWE+", "IBAN+", "BIC+", "COAM+", "OAMT+"}

// sepaPurpose returns the remittance text (after SVWZ+) of a SEPA purpose,
// up to the next keyword; "" when there is none. The purpose's subfields
// run on without blanks, as the 27-character lines cut words anywhere.
func sepaPurpose(purpose string) string {
	_, text, ok := strings.Cut(purpose, "SVWZ+")
	if !ok {
		return ""
	}
	for _, tag := range sepaTags {
		if i := strings.Index(text, tag); i >= 0 {
			text = text[:i]
		}
	}
	return clean(text)
}

// yymmdd reads a SWIFT date; years 00-79 are 2000-2079 and 80-99 are
// 1980-1999, the window SWIFT messages use in practice.
func yymmdd(s string) (finance.Date, bool) {
	y, _ := number(s[:2])
	if y < 80 {
		y += 2000
	} else {
		y += 1900
	}
	return compactDate.parse(itoa4(y) + s[2:6])
}

// entryDate places the entry date MMDD in the year of the value date, or
// the one next to it when the two straddle a new year (value 31 December,
// booked 2 January).
func entryDate(value finance.Date, mmdd string) (finance.Date, bool) {
	m, _ := number(mmdd[:2])
	y := value.Year()
	switch {
	case value.Month() == time.December && m == 1:
		y++
	case value.Month() == time.January && m == 12:
		y--
	}
	return compactDate.parse(itoa4(y) + mmdd)
}

func itoa4(n int) string {
	b := []byte{'0', '0', '0', '0'}
	for i := 3; i >= 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}

package importfile

import (
	"html"
	"strings"
)

// ofxTxn holds the fields of one <STMTTRN> as they are met.
type ofxTxn struct {
	line                                    int
	posted, amount, fitid, name, memo, curr string
	hasAmount                               bool
}

// readOFX reads OFX 1.x (SGML, where leaf elements have no closing tag),
// OFX 2.x (XML) and QFX with one tokenizer: a tag, then the text up to the
// next tag. Both versions come down to the same stream, and an SGML file
// that also leaves aggregates unclosed still reads, because a transaction
// ends at the next <STMTTRN> or the end of the list as well as at its own
// closing tag. Bank and card statements alike: a negative TRNAMT is money
// out of the account, or a charge on the card.
func readOFX(text string, opt Options) (*Result, error) {
	if err := refuseEntities(text); err != nil {
		return nil, err
	}
	xml := strings.Contains(text[:min(len(text), 512)], "<?xml")
	if !xml {
		if err := checkLineLengths(text); err != nil {
			return nil, err
		}
	}
	start := strings.Index(strings.ToUpper(text), "<OFX>")
	if start < 0 {
		return nil, fileError(0, "the file has no <OFX> element, so it is not an OFX statement")
	}
	res := &Result{}
	rows := rowCounter{max: opt.MaxRows}
	var cur *ofxTxn
	finish := func() error {
		if cur == nil {
			return nil
		}
		t := cur
		cur = nil
		if err := rows.add(t.line); err != nil {
			return err
		}
		row, problem := t.row(res.Currency)
		if problem != "" {
			res.Errors = append(res.Errors, RowError{Line: t.line, Message: problem})
			return nil
		}
		res.Rows = append(res.Rows, row)
		return nil
	}
	lines := lineCursor{text: text}
	pos := start
	for pos < len(text) {
		open := strings.IndexByte(text[pos:], '<')
		if open < 0 {
			break
		}
		open += pos
		end := strings.IndexByte(text[open:], '>')
		if end < 0 {
			break // a tag cut off by the end of the file: what came before still counts
		}
		end += open
		line := lines.at(open)
		tag := strings.ToUpper(strings.TrimSpace(text[open+1 : end]))
		next := strings.IndexByte(text[end+1:], '<')
		if next < 0 {
			next = len(text) - end - 1
		}
		value := clean(html.UnescapeString(text[end+1 : end+1+next]))
		pos = end + 1
		if tag == "" || tag[0] == '?' || tag[0] == '!' {
			continue
		}
		closing := strings.HasPrefix(tag, "/")
		name := strings.TrimSuffix(strings.TrimPrefix(tag, "/"), "/")
		if i := strings.IndexAny(name, " \t\n"); i >= 0 {
			name = name[:i] // attributes, which OFX does not use
		}
		switch {
		case name == "STMTTRN" && !closing:
			if err := finish(); err != nil {
				return nil, err
			}
			cur = &ofxTxn{line: line}
		case (name == "STMTTRN" || name == "BANKTRANLIST") && closing:
			if err := finish(); err != nil {
				return nil, err
			}
		case closing:
		case name == "CURDEF" && cur == nil:
			res.Currency = strings.ToUpper(value)
		case cur != nil:
			cur.set(name, value)
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	for i := range res.Rows {
		if res.Rows[i].Currency == "" {
			res.Rows[i].Currency = res.Currency
		}
	}
	return res, nil
}

func (t *ofxTxn) set(name, value string) {
	switch name {
	case "DTPOSTED":
		t.posted = value
	case "TRNAMT":
		t.amount, t.hasAmount = value, true
	case "FITID":
		t.fitid = value
	case "NAME":
		t.name = value
	case "MEMO":
		t.memo = value
	case "CURSYM":
		t.curr = strings.ToUpper(value) // a transaction in another currency than CURDEF
	}
}

// row reads the transaction. Its description is the MEMO, where banks put
// the detail, or else the NAME; the NAME is the payee.
func (t *ofxTxn) row(currency string) (Row, string) {
	row := Row{Line: t.line, BankID: t.fitid, Payee: t.name, Currency: t.curr}
	if len(t.posted) < 8 {
		if t.posted == "" {
			return row, "the transaction has no DTPOSTED (date)"
		}
		return row, "DTPOSTED " + quote(t.posted) + " is not a date in YYYYMMDD"
	}
	d, ok := compactDate.parse(t.posted[:8])
	if !ok {
		return row, "DTPOSTED " + quote(t.posted) + " is not a date in YYYYMMDD"
	}
	row.Date = d
	if !t.hasAmount || t.amount == "" {
		return row, "the transaction has no TRNAMT (amount)"
	}
	amount, neg, err := rowAmount(t.amount, 0)
	if err != nil {
		return row, amountProblem("TRNAMT", t.amount, err)
	}
	row.Amount, row.Direction = amount.Abs(), signed(neg)
	row.Description = firstNonEmpty(t.memo, t.name)
	return row, ""
}

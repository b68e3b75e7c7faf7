package importfile

import (
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
)

// The CAMT elements read, by local name: encoding/xml matches a field
// without a namespace in its tag against any namespace, so one set of
// structs reads camt.053.001.02 to .08 and camt.052 alike.
type camtAmount struct {
	Value string `xml:",chardata"`
	Ccy   string `xml:"Ccy,attr"`
}

type camtParty struct {
	Nm  string `xml:"Nm"`
	Pty struct {
		Nm string `xml:"Nm"` // .08 wraps the party: Cdtr/Pty/Nm
	} `xml:"Pty"`
}

func (p camtParty) name() string { return clean(firstNonEmpty(p.Pty.Nm, p.Nm)) }

type camtTxDtls struct {
	Refs struct {
		AcctSvcrRef string `xml:"AcctSvcrRef"`
		EndToEndID  string `xml:"EndToEndId"`
	} `xml:"Refs"`
	Amt     camtAmount `xml:"Amt"` // .04 and later
	AmtDtls struct {
		TxAmt struct {
			Amt camtAmount `xml:"Amt"`
		} `xml:"TxAmt"`
	} `xml:"AmtDtls"`
	CdtDbtInd string `xml:"CdtDbtInd"`
	RltdPties struct {
		Dbtr camtParty `xml:"Dbtr"`
		Cdtr camtParty `xml:"Cdtr"`
	} `xml:"RltdPties"`
	RmtInf struct {
		Ustrd []string `xml:"Ustrd"`
	} `xml:"RmtInf"`
	AddtlTxInf string `xml:"AddtlTxInf"`
}

type camtDate struct {
	Dt   string `xml:"Dt"`
	DtTm string `xml:"DtTm"`
}

func (d camtDate) text() string {
	return firstNonEmpty(strings.TrimSpace(d.Dt), strings.TrimSpace(d.DtTm))
}

type camtEntry struct {
	NtryRef   string     `xml:"NtryRef"`
	Amt       camtAmount `xml:"Amt"`
	CdtDbtInd string     `xml:"CdtDbtInd"`
	RvslInd   string     `xml:"RvslInd"`
	Sts       struct {
		Text string `xml:",chardata"` // .02 to .06: <Sts>BOOK</Sts>
		Cd   string `xml:"Cd"`        // .07 and later: <Sts><Cd>BOOK</Cd></Sts>
	} `xml:"Sts"`
	BookgDt      camtDate     `xml:"BookgDt"`
	ValDt        camtDate     `xml:"ValDt"`
	AcctSvcrRef  string       `xml:"AcctSvcrRef"`
	TxDtls       []camtTxDtls `xml:"NtryDtls>TxDtls"`
	AddtlNtryInf string       `xml:"AddtlNtryInf"`
}

// readCAMT reads an ISO 20022 bank-to-customer statement (camt.053) or
// account report (camt.052), streaming: each <Ntry> is decoded on its own,
// so its line is known and a broken end still leaves the entries before it.
// An entry that batches several transactions with their own amounts
// (TxDtls) is one row per transaction; otherwise it is one row. Entries
// not booked yet (pending, in an intraday camt.052) are reported, not read:
// their amount and date may still change.
func readCAMT(text string, opt Options) (*Result, error) {
	if err := refuseEntities(text); err != nil {
		return nil, err
	}
	res := &Result{}
	rows := rowCounter{max: opt.MaxRows}
	dec := xml.NewDecoder(strings.NewReader(text))
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // already decoded to UTF-8
	seenStatement := false
	haveAcct := false // the statement's own account, ahead of its entries
	lines := lineCursor{text: text}
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line := lineAt(text, int(dec.InputOffset()))
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				line = se.Line
			}
			if len(res.Rows) == 0 && len(res.Errors) == 0 {
				return nil, fileError(line, "the XML is broken: %v", xmlProblem(err))
			}
			res.Errors = append(res.Errors, RowError{Line: line, Message: "the XML is broken here, so the rest of the file was not read: " + xmlProblem(err)})
			break
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch start.Name.Local {
		case "BkToCstmrStmt", "BkToCstmrAcctRpt":
			seenStatement = true
		case "Acct":
			if !haveAcct {
				var acct struct {
					Ccy string `xml:"Ccy"`
				}
				if err := dec.DecodeElement(&acct, &start); err == nil && res.Currency == "" {
					res.Currency = strings.ToUpper(strings.TrimSpace(acct.Ccy))
				}
				haveAcct = true
			}
		case "Ntry":
			line := lines.at(int(off))
			var e camtEntry
			if err := dec.DecodeElement(&e, &start); err != nil {
				if len(res.Rows) == 0 && len(res.Errors) == 0 {
					return nil, fileError(line, "the XML is broken: %v", xmlProblem(err))
				}
				res.Errors = append(res.Errors, RowError{Line: line, Message: "the XML is broken in this entry, so the rest of the file was not read: " + xmlProblem(err)})
				return res, nil
			}
			if err := rows.add(line); err != nil {
				return nil, err
			}
			for _, r := range e.rows(line, res.Currency) {
				if r.problem != "" {
					res.Errors = append(res.Errors, RowError{Line: line, Message: r.problem})
				} else {
					res.Rows = append(res.Rows, r.row)
				}
			}
		}
	}
	if !seenStatement {
		return nil, fileError(0, "the XML has no BkToCstmrStmt or BkToCstmrAcctRpt element, so it is not a camt.053 or camt.052 statement")
	}
	return res, nil
}

func xmlProblem(err error) string {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}

// errSignedCAMT: ISO 20022 amounts are unsigned, and CdtDbtInd says the way.
var errSignedCAMT = errors.New("has a sign, which a CAMT amount never has (CdtDbtInd says the way)")

type camtRow struct {
	row     Row
	problem string
}

func (e camtEntry) rows(line int, currency string) []camtRow {
	status := strings.ToUpper(strings.TrimSpace(firstNonEmpty(e.Sts.Cd, e.Sts.Text)))
	if status != "" && status != "BOOK" {
		return []camtRow{{problem: "the entry is not booked yet (status " + status + "); only booked entries are read"}}
	}
	dateText := firstNonEmpty(e.BookgDt.text(), e.ValDt.text())
	date, ok := isoDate.parse(dateText)
	if !ok {
		if dateText == "" {
			return []camtRow{{problem: "the entry has no BookgDt (booking date)"}}
		}
		return []camtRow{{problem: "BookgDt " + quote(dateText) + " is not a date in YYYY-MM-DD"}}
	}
	entryRef := firstNonEmpty(strings.TrimSpace(e.AcctSvcrRef), strings.TrimSpace(e.NtryRef))
	var out []camtRow
	// One row per transaction of a batch whose transactions carry amounts.
	batch := len(e.TxDtls) > 1
	for _, t := range e.TxDtls {
		if firstNonEmpty(t.Amt.Value, t.AmtDtls.TxAmt.Amt.Value) == "" {
			batch = false
		}
	}
	parts := e.TxDtls
	if !batch {
		parts = parts[:min(len(parts), 1)]
	}
	if len(parts) == 0 {
		parts = []camtTxDtls{{}}
	}
	for i, t := range parts {
		row := Row{Line: line, Date: date, Currency: strings.ToUpper(firstNonEmpty(e.Amt.Ccy, currency))}
		amt, indicator := e.Amt, e.CdtDbtInd
		if batch {
			amt = t.Amt
			if amt.Value == "" {
				amt = t.AmtDtls.TxAmt.Amt
			}
			indicator = firstNonEmpty(t.CdtDbtInd, e.CdtDbtInd)
			row.Currency = strings.ToUpper(firstNonEmpty(amt.Ccy, row.Currency))
		}
		amount, neg, err := rowAmount(amt.Value, '.')
		if err == nil && neg {
			err = errSignedCAMT
		}
		if err != nil {
			out = append(out, camtRow{problem: amountProblem("Amt", amt.Value, err)})
			continue
		}
		row.Amount = amount
		switch strings.ToUpper(strings.TrimSpace(indicator)) {
		case "DBIT":
			row.Direction = Debit
		case "CRDT":
			row.Direction = Credit
		default:
			out = append(out, camtRow{problem: "CdtDbtInd " + quote(indicator) + " is neither CRDT nor DBIT"})
			continue
		}
		// A reversal books the opposite way of what it reverses, and its
		// indicator already says which way (ISO 20022 usage guidelines), so
		// RvslInd changes nothing here.
		if row.Direction == Debit {
			row.Payee = t.RltdPties.Cdtr.name()
		} else {
			row.Payee = t.RltdPties.Dbtr.name()
		}
		row.BankID = strings.TrimSpace(t.Refs.AcctSvcrRef)
		if row.BankID == "" && entryRef != "" {
			row.BankID = entryRef
			if batch {
				row.BankID += "/" + strconv.Itoa(i+1)
			}
		}
		row.Description = firstNonEmpty(clean(strings.Join(t.RmtInf.Ustrd, " ")), clean(t.AddtlTxInf), clean(e.AddtlNtryInf), row.Payee)
		out = append(out, camtRow{row: row})
	}
	return out
}

// Package importfile reads bank statements and other apps' exports into plain rows. It knows nothing of the ledger.
//
// Every format is read leniently, because real bank files are messy (wrong
// charsets, missing closing tags, byte order marks, "1.234,56"), but never
// silently: a row that cannot be read is a RowError naming its line, and a
// file that cannot be read at all is an *Error naming the field to fix.
// Amounts go from text to finance.Money without float64.
package importfile

import (
	"bytes"
	"fmt"

	"github.com/finance-app/finance/finance"
)

// Format is a statement file format.
type Format string

// The formats Read understands.
const (
	CSV   Format = "csv"
	OFX   Format = "ofx" // OFX 1.x SGML and 2.x XML, QFX too
	QIF   Format = "qif"
	CAMT  Format = "camt" // camt.053 and camt.052
	MT940 Format = "mt940"
)

// Direction says which way the money of a row went.
type Direction string

// The two directions of a row.
const (
	Debit  Direction = "debit"  // money out of the account / a charge on a card
	Credit Direction = "credit" // money in / a card refund or payment
)

// Row is one transaction of the file.
type Row struct {
	Line        int           // 1-based line of the file where the row starts (for CSV: the physical line, header = 1)
	Date        finance.Date  // booking date (CAMT BookgDt, OFX DTPOSTED, QIF D, MT940 :61: entry date, else value date)
	Amount      finance.Money // always > 0 (minor units); the sign lives in Direction
	Direction   Direction
	Description string // trimmed, inner whitespace collapsed, never empty when the file has any text for the row
	Payee       string // when the format has one (OFX NAME, QIF P, CAMT counterparty name, CSV payee column)
	Category    string // when the file has one (QIF L, CSV category column); empty otherwise
	BankID      string // the bank's own id when present: OFX FITID, CAMT AcctSvcrRef or NtryRef, MT940 bank reference; empty otherwise
	Currency    string // ISO 4217 when the file says (OFX CURDEF, CAMT Ccy, MT940 :60F:); empty otherwise
}

// RowError is a row the reader could not read; the rest of the file still reads.
type RowError struct {
	Line    int
	Message string // in plain words: "date \"31/02/2026\" is not a date in DD/MM/YYYY"
}

// Options tune Read. All are optional; zero values mean detect.
type Options struct {
	Format           Format
	Encoding         string   // "utf-8", "windows-1252", "iso-8859-1", "utf-16" ...; empty = detect (BOM, then valid UTF-8, else windows-1252)
	DateFormat       string   // one of DateFormats; empty = detect from the values
	DecimalSeparator string   // "." or ","; empty = detect per file
	Mapping          *Mapping // CSV only; nil = detect from the header
	MaxRows          int      // 0 = DefaultMaxRows
}

// DefaultMaxRows is the most rows one file may hold unless Options.MaxRows says otherwise.
const DefaultMaxRows = 50_000

// MaxLineBytes caps one line of a line-based file (CSV, QIF, MT940, OFX SGML):
// a longer line is refused before it is split into fields, so a hostile file
// cannot make the reader hold a huge field.
const MaxLineBytes = 64 << 10

// Mapping says which CSV columns hold what. Columns are named by their header
// text (case and surrounding blanks ignored) or by 1-based number ("3").
type Mapping struct {
	Date, Amount, Debit, Credit, Description, Payee, Category, Reference string
	// Amount: one signed column (negative = debit); or Debit and Credit columns (each positive).
	// Reference: the bank's own id of each row (Row.BankID).
	Negate    bool   // for files where a positive amount is money out (card statements often)
	Delimiter string // "," ";" "\t" "|"; empty = detect
	Header    *bool  // nil = detect
	SkipLines int    // lines before the header (banks put account info above it)

	// Type is a column whose words decide the direction ahead of the sign:
	// expense, withdrawal, debit, DR, transfer mean money out; income,
	// deposit, credit, CR mean money in; any other word leaves it to the sign.
	Type string
	// PayeeIn is the column naming the payer on money-in rows when the file
	// keeps it apart from the payee of money-out rows (Firefly III's
	// source_name beside destination_name).
	PayeeIn string
	// Currency is a column holding each row's ISO 4217 code.
	Currency string
}

// Result of reading one file.
type Result struct {
	Format   Format
	Encoding string   // what was used
	Preset   string   // CSV preset detected ("firefly", "actual", "ynab", "ezbookkeeping", "finance", "generic"), empty for others
	Mapping  *Mapping // CSV: the mapping used (so the caller can save it per target and show it)
	Columns  []string // CSV: the header (for a mapping form)
	Rows     []Row
	Errors   []RowError
	Currency string // file-level currency if stated

	// DateFormat and DecimalSeparator are what a CSV or QIF file was read
	// with (detected or given), so a preview can show them and a second
	// read can pin them; the other formats fix both, and leave them empty.
	DateFormat       string
	DecimalSeparator string
}

// Error is a file that cannot be read at all. Field names what to fix:
// "file", "format", "encoding", "mapping", "date_format",
// "decimal_separator" (the REST layer turns it into a 400 naming that field).
type Error struct {
	Line    int // 0 when no line is to blame
	Field   string
	Message string
	// Columns are a CSV's columns when its mapping is the problem: the
	// header's names, or "1", "2", ... for a file without a header, so a
	// form can offer them to map.
	Columns []string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return e.Message
}

func fileError(line int, format string, args ...any) *Error {
	return &Error{Line: line, Field: "file", Message: fmt.Sprintf(format, args...)}
}

// Read reads the whole file (already size-limited by the caller) and returns its rows. A file that cannot be read at
// all (unknown format, not a CSV, broken XML with no entries, too many rows) is an *Error naming the line where possible.
func Read(name string, data []byte, opt Options) (*Result, error) {
	if err := refuseArchive(data); err != nil {
		return nil, err
	}
	text, enc, err := decode(data, opt.Encoding)
	if err != nil {
		return nil, err
	}
	format := opt.Format
	if format == "" {
		if format, err = detectText(name, text); err != nil {
			return nil, err
		}
	}
	if opt.MaxRows <= 0 {
		opt.MaxRows = DefaultMaxRows
	}
	if opt.DecimalSeparator != "" && opt.DecimalSeparator != "." && opt.DecimalSeparator != "," {
		return nil, &Error{Field: "decimal_separator", Message: fmt.Sprintf("decimal separator %q is not \".\" or \",\"", opt.DecimalSeparator)}
	}
	if opt.DateFormat != "" {
		if _, ok := layoutNamed(opt.DateFormat); !ok {
			return nil, &Error{Field: "date_format", Message: fmt.Sprintf("date format %q is not one of %s", opt.DateFormat, dateFormatList())}
		}
	}
	var res *Result
	switch format {
	case CSV:
		res, err = readCSV(text, opt)
	case OFX:
		res, err = readOFX(text, opt)
	case QIF:
		res, err = readQIF(text, opt)
	case CAMT:
		res, err = readCAMT(text, opt)
	case MT940:
		res, err = readMT940(text, opt)
	default:
		return nil, &Error{Field: "format", Message: fmt.Sprintf("format %q is not one of csv, ofx, qif, camt, mt940", format)}
	}
	if err != nil {
		return nil, err
	}
	res.Format, res.Encoding = format, enc
	return res, nil
}

// Detect guesses the format from the file name's extension and the first bytes.
// The bytes win: a ".csv" download that holds OFX is OFX.
func Detect(name string, data []byte) (Format, error) {
	if err := refuseArchive(data); err != nil {
		return "", err
	}
	text, _, err := decode(data, "")
	if err != nil {
		return "", err
	}
	return detectText(name, text)
}

// refuseArchive turns away zip files (and so xlsx, which is one) before
// anything looks inside: unpacking is where a zip bomb does its harm.
func refuseArchive(data []byte) error {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")) {
		return &Error{Field: "file", Message: "the file is a zip archive (or an Excel .xlsx workbook); unzip it, or save the sheet as CSV, and upload the statement itself"}
	}
	return nil
}

// rowCounter enforces MaxRows as rows are found, so a huge file stops early
// rather than after it was all read.
type rowCounter struct {
	max, n int
}

func (c *rowCounter) add(line int) error {
	c.n++
	if c.n > c.max {
		return fileError(line, "the file has more than %d rows; split it into smaller files", c.max)
	}
	return nil
}

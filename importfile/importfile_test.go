package importfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Format
	}{
		{"statement.ofx", "OFXHEADER:100\nDATA:OFXSGML\n\n<OFX>", OFX},
		{"download.csv", "OFXHEADER:100\n\n<OFX>", OFX}, // the content wins over the extension
		{"x.qfx", "<?xml version=\"1.0\"?>\n<?OFX OFXHEADER=\"200\"?>\n<OFX>", OFX},
		{"x.xml", "<?xml version=\"1.0\"?><Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.02\"><BkToCstmrStmt>", CAMT},
		{"x.xml", "<Document><BkToCstmrAcctRpt>", CAMT},
		{"x.txt", "!Type:Bank\nD01/02/2026\n", QIF},
		{"x.qif", "D01/02/2026\nT5\n^\n", QIF},
		{"x.txt", "{1:F01DEUTDEFFAXXX0000000000}{2:O940}{4:\n:20:X\n", MT940},
		{"x.txt", ":20:STMT\n:25:123/456\n:28C:1\n", MT940},
		{"x.sta", "anything", MT940},
		{"x.csv", "Date,Amount\n2026-01-01,5\n", CSV},
		{"export", "Date;Amount\n2026-01-01;5\n", CSV},
	}
	for _, tt := range tests {
		got, err := Detect(tt.name, []byte(tt.data))
		if err != nil || got != tt.want {
			t.Errorf("Detect(%q, %.20q) = %q, %v; want %q", tt.name, tt.data, got, err, tt.want)
		}
	}
	for file, want := range map[string]Format{
		"bpi-savings.csv": CSV, "sparkasse.csv": CSV, "ynab-register.csv": CSV, "checking-ofx102.ofx": OFX, "card-ofx220.qfx": OFX,
		"checking.qif": QIF, "camt053-v02.xml": CAMT, "camt053-v08.xml": CAMT, "camt052-v04.xml": CAMT, "statement.sta": MT940,
	} {
		// Named plainly, the content alone decides.
		if got, err := Detect("upload", fixture(t, file)); err != nil || got != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", file, got, err, want)
		}
	}
}

func TestDetectRefuses(t *testing.T) {
	tests := []struct {
		name, data, field, message string
	}{
		{"statement.zip", "PK\x03\x04\x14\x00\x00\x00\x08\x00", "file", "the file is a zip archive (or an Excel .xlsx workbook); unzip it, or save the sheet as CSV, and upload the statement itself"},
		{"statement.xlsx", "PK\x03\x04rest", "file", "the file is a zip archive (or an Excel .xlsx workbook); unzip it, or save the sheet as CSV, and upload the statement itself"},
		{"statement.pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "format", "the file is a PDF, whose text is not read; download the statement as CSV, OFX, QIF, CAMT or MT940 instead"},
		{"photo.jpg", "\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", "format", "the file is not a bank statement this reader knows (CSV, OFX, QFX, QIF, CAMT.053/.052, MT940)"},
		{"other.xml", "<?xml version=\"1.0\"?><Invoice/>", "format", "the XML file is neither a CAMT statement (BkToCstmrStmt or BkToCstmrAcctRpt) nor OFX"},
		{"empty.csv", "\n\n  \n", "file", "the file is empty"},
	}
	for _, tt := range tests {
		_, err := Detect(tt.name, []byte(tt.data))
		want := &Error{Field: tt.field, Message: tt.message}
		if diff := cmp.Diff(error(want), err); diff != "" {
			t.Errorf("Detect(%s) (-want +got):\n%s", tt.name, diff)
		}
		// Read refuses the same way, reading nothing.
		res, err := Read(tt.name, []byte(tt.data), Options{})
		if res != nil || cmp.Diff(error(want), err) != "" {
			t.Errorf("Read(%s) = %v, %v; want %v", tt.name, res, err, want)
		}
	}
}

func utf16Bytes(s string, bigEndian, bom bool) []byte {
	var b bytes.Buffer
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xFEFF}, units...)
	}
	for _, u := range units {
		if bigEndian {
			b.WriteByte(byte(u >> 8))
			b.WriteByte(byte(u))
		} else {
			b.WriteByte(byte(u))
			b.WriteByte(byte(u >> 8))
		}
	}
	return b.Bytes()
}

func TestReadEncodings(t *testing.T) {
	const text = "Date,Description,Amount\n2026-01-31,Café Größer,-4.80\n"
	tests := []struct {
		name     string
		data     []byte
		opt      Options
		encoding string
	}{
		{"utf-8", []byte(text), Options{}, "utf-8"},
		{"utf-8 with BOM", append([]byte{0xEF, 0xBB, 0xBF}, text...), Options{}, "utf-8"},
		{"utf-16le with BOM", utf16Bytes(text, false, true), Options{}, "utf-16le"},
		{"utf-16be with BOM", utf16Bytes(text, true, true), Options{}, "utf-16be"},
		{"utf-16le without BOM", utf16Bytes(text, false, false), Options{}, "utf-16le"},
		{"windows-1252 detected", []byte("Date,Description,Amount\n2026-01-31,Caf\xe9 Gr\xf6\xdfer,-4.80\n"), Options{}, "windows-1252"},
		{"latin-1 named", []byte("Date,Description,Amount\n2026-01-31,Caf\xe9 Gr\xf6\xdfer,-4.80\n"), Options{Encoding: "ISO-8859-1"}, "windows-1252"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := readOK(t, "x.csv", tt.data, tt.opt)
			if res.Encoding != tt.encoding {
				t.Errorf("encoding %q; want %q", res.Encoding, tt.encoding)
			}
			checkRows(t, res, []Row{{Line: 2, Date: date(t, "2026-01-31"), Amount: 480, Direction: Debit, Description: "Café Größer"}}, nil)
		})
	}
	e := readFails(t, "x.csv", []byte(text), Options{Encoding: "klingon-8"})
	if e.Field != "encoding" {
		t.Errorf("error %+v; want the encoding named", e)
	}
	e = readFails(t, "x.csv", []byte("Date,Amount\n2026-01-31,\xff5\n"), Options{Encoding: "utf-8"})
	if e.Field != "encoding" || !strings.Contains(e.Message, "not valid UTF-8") {
		t.Errorf("error %+v; want the file named not UTF-8", e)
	}
}

func TestReadOptionsRefused(t *testing.T) {
	data := []byte("Date,Amount\n2026-01-31,5\n")
	for _, tt := range []struct {
		opt   Options
		field string
	}{
		{Options{Format: "xlsx"}, "format"},
		{Options{DateFormat: "YYYY-DD-MM"}, "date_format"},
		{Options{DecimalSeparator: ";"}, "decimal_separator"},
		{Options{Mapping: &Mapping{Delimiter: "::"}}, "mapping"},
		{Options{Mapping: &Mapping{SkipLines: -1}}, "mapping"},
	} {
		if e := readFails(t, "x.csv", data, tt.opt); e.Field != tt.field {
			t.Errorf("Read with %+v: error %+v; want field %q", tt.opt, e, tt.field)
		}
	}
}

// TestReadLimits: a long line and too many rows are refused with the line
// named, in every line-based format.
func TestReadLimits(t *testing.T) {
	long := strings.Repeat("x", MaxLineBytes+1)
	for _, tt := range []struct{ name, text string }{
		{"x.csv", "Date,Amount,Memo\n2026-01-31,5,ok\n2026-01-31,5," + long + "\n"},
		{"x.qif", "!Type:Bank\nD01/31/2026\nP" + long + "\n"},
		{"x.sta", ":20:X\n:25:1\n:86:" + long + "\n"},
		{"x.ofx", "OFXHEADER:100\n<OFX>\n<NAME>" + long + "\n"},
	} {
		e := readFails(t, tt.name, []byte(tt.text), Options{})
		want := &Error{Line: 3, Field: "file", Message: "the line is longer than 64 KiB; this is not a statement line"}
		checkError(t, want, e)
	}

	var csv strings.Builder
	csv.WriteString("Date,Amount\n")
	for range 11 {
		csv.WriteString("2026-01-31,5\n")
	}
	e := readFails(t, "x.csv", []byte(csv.String()), Options{MaxRows: 10})
	checkError(t, &Error{Line: 12, Field: "file", Message: "the file has more than 10 rows; split it into smaller files"}, e)
	if res := readOK(t, "x.csv", []byte(csv.String()), Options{MaxRows: 11}); len(res.Rows) != 11 {
		t.Errorf("%d rows; want 11 within the limit", len(res.Rows))
	}
	var qif strings.Builder
	qif.WriteString("!Type:Bank\n")
	for range 3 {
		qif.WriteString("D01/31/2026\nT5\n^\n")
	}
	e = readFails(t, "x.qif", []byte(qif.String()), Options{MaxRows: 2})
	checkError(t, &Error{Line: 8, Field: "file", Message: "the file has more than 2 rows; split it into smaller files"}, e)
	e = readFails(t, "statement.sta", fixture(t, "statement.sta"), Options{MaxRows: 2})
	if e.Line != 12 || e.Field != "file" {
		t.Errorf("MT940 rows: %+v; want line 12", e)
	}
	e = readFails(t, "camt053-v02.xml", fixture(t, "camt053-v02.xml"), Options{MaxRows: 1})
	if e.Line != 42 || e.Field != "file" {
		t.Errorf("CAMT rows: %+v; want line 42", e)
	}
	e = readFails(t, "card-ofx220.qfx", fixture(t, "card-ofx220.qfx"), Options{MaxRows: 2})
	if e.Line != 38 || e.Field != "file" {
		t.Errorf("OFX rows: %+v; want line 38", e)
	}
}

// FuzzRead: no input makes the reader panic, and every row it returns
// keeps the Row contract.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, file := range files {
		if strings.HasSuffix(file, ".md") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Base(file), data)
	}
	f.Add("x.csv", []byte("Date,Amount\n\"2026-01-01,5\n"))
	f.Add("x.ofx", []byte("<OFX><STMTTRN><TRNAMT>"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		res, err := Read(name, data, Options{})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T %v; want *Error", err, err)
			}
			return
		}
		for _, r := range res.Rows {
			if r.Amount <= 0 || (r.Direction != Debit && r.Direction != Credit) || r.Date.IsZero() || r.Line < 1 {
				t.Fatalf("row breaks the contract: %+v", r)
			}
		}
	})
}

// BenchmarkReadCSV10k reads a 10,000-row bank CSV, as a preview does.
func BenchmarkReadCSV10k(b *testing.B) {
	data := testkit.BankCSV(10_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		res, err := Read("bank.csv", data, Options{})
		if err != nil || len(res.Rows) != 10_000 {
			b.Fatalf("%v, %d rows", err, len(res.Rows))
		}
	}
}

// ReadForLedger hands the ledger every row and line error the reader found,
// field by field, and words a file that cannot be read as a problem of the
// field to fix.
func TestReadForLedger(t *testing.T) {
	data := []byte("Date,Description,Amount,Ref\n2026-03-02,Grocer,-12.50,A1\n2026-03-03,Salary,1000.00,A2\nnot a date,Broken,1.00,A3\n")
	file, res, err := ReadForLedger("march.csv", data, Options{Mapping: &Mapping{Date: "Date", Description: "Description", Amount: "Amount", Reference: "Ref"}})
	if err != nil {
		t.Fatal(err)
	}
	want := finance.ImportFile{Name: "march.csv", Format: "csv", Encoding: res.Encoding,
		Rows: []finance.ImportFileRow{
			{Line: 2, Date: date(t, "2026-03-02"), Amount: 1250, Direction: finance.DirectionDebit, Description: "Grocer", BankID: "A1"},
			{Line: 3, Date: date(t, "2026-03-03"), Amount: 100000, Direction: finance.DirectionCredit, Description: "Salary", BankID: "A2"},
		},
		Errors: []finance.ImportLineError{{Line: 4, Message: res.Errors[0].Message}}}
	if diff := cmp.Diff(want, file, compareDates); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if res.Columns == nil || res.Columns[0] != "Date" {
		t.Errorf("columns %q, want the header", res.Columns)
	}

	_, _, err = ReadForLedger("march.csv", data, Options{Mapping: &Mapping{Date: "When", Amount: "Amount"}})
	var ve *finance.ValidationError
	if !errors.As(err, &ve) || ve.Fields["mapping"] == "" {
		t.Errorf("a mapping naming no column: %v, want a problem on mapping", err)
	}
	// A mapping problem comes with the columns to map, by name or, without
	// a header, by number.
	for name, c := range map[string]struct {
		data    string
		mapping *Mapping
		want    []string
	}{
		"unknown header":     {"When,What,How much\n2026-03-02,Grocer,-12.50\n", nil, []string{"When", "What", "How much"}},
		"no header":          {"2026-03-02,Grocer,abc\n2026-03-03,Salary,def,x\n", nil, []string{"1", "2", "3", "4"}},
		"a column not there": {string(data), &Mapping{Date: "When", Amount: "Amount"}, []string{"Date", "Description", "Amount", "Ref"}},
	} {
		_, res, err := ReadForLedger("x.csv", []byte(c.data), Options{Mapping: c.mapping})
		if !errors.As(err, &ve) || ve.Fields["mapping"] == "" || res == nil {
			t.Errorf("%s: %v, %v; want a problem on mapping with the columns", name, res, err)
			continue
		}
		if diff := cmp.Diff(c.want, res.Columns); diff != "" {
			t.Errorf("%s: columns (-want +got):\n%s", name, diff)
		}
	}
	_, _, err = ReadForLedger("x.bin", []byte("PK\x03\x04zip"), Options{})
	if !errors.As(err, &ve) || !strings.Contains(ve.Fields["file"], "zip") {
		t.Errorf("a zip: %v, want a problem on file", err)
	}
}

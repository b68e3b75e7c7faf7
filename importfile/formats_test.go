package importfile

import (
	"strings"
	"testing"
)

func TestReadOFX(t *testing.T) {
	t.Run("1.02 SGML bank statement", func(t *testing.T) {
		// Leaf elements without closing tags, the OFX header block, CRLF,
		// an escaped "&", "-2,450.00", and a date that does not exist.
		res := readOK(t, "checking-ofx102.ofx", fixture(t, "checking-ofx102.ofx"), Options{})
		if res.Format != OFX || res.Currency != "PHP" || res.Preset != "" || res.Mapping != nil {
			t.Errorf("format %s currency %q preset %q mapping %v; want ofx PHP and no CSV fields", res.Format, res.Currency, res.Preset, res.Mapping)
		}
		checkRows(t, res, []Row{
			{Line: 39, Date: date(t, "2026-01-02"), Amount: 123456, Direction: Debit, Description: "POS PURCHASE", Payee: "SM SUPERMARKET MAKATI", BankID: "2026010200001", Currency: "PHP"},
			{Line: 47, Date: date(t, "2026-01-15"), Amount: 3500000, Direction: Credit, Description: "SALARY CREDIT", Payee: "ACME PHILS INC", BankID: "2026011500007", Currency: "PHP"},
			{Line: 55, Date: date(t, "2026-01-20"), Amount: 245000, Direction: Debit, Description: "MERALCO & CO", Payee: "MERALCO & CO", BankID: "2026012000003", Currency: "PHP"},
		}, []RowError{{Line: 63, Message: `DTPOSTED "20260231" is not a date in YYYYMMDD`}})
	})
	t.Run("2.2 XML card statement as QFX", func(t *testing.T) {
		// A charge is a negative TRNAMT, a payment to the card positive.
		res := readOK(t, "card-ofx220.qfx", fixture(t, "card-ofx220.qfx"), Options{})
		checkRows(t, res, []Row{
			{Line: 22, Date: date(t, "2026-01-04"), Amount: 5420, Direction: Debit, Description: "AUSTIN TX", Payee: "WHOLE FOODS MKT #10234", BankID: "320260040123456789", Currency: "USD"},
			{Line: 31, Date: date(t, "2026-01-12"), Amount: 50000, Direction: Credit, Description: "PAYMENT THANK YOU", Payee: "PAYMENT THANK YOU", BankID: "320260120987654321", Currency: "USD"},
			{Line: 38, Date: date(t, "2026-01-18"), Amount: 102000, Direction: Debit, Description: "DELTA AIR LINES", Payee: "DELTA AIR LINES", BankID: "320260180555555555", Currency: "USD"},
		}, nil)
	})
	t.Run("cut off mid-file", func(t *testing.T) {
		// A download that stopped in the middle of a transaction: what came
		// before still reads, the cut transaction says what it lacks.
		text := "OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKTRANLIST>\n" +
			"<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260105<TRNAMT>-4,80<FITID>A1<NAME>Bäcker\n" +
			"<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260106<FITID>A2<NAME>Cut"
		res := readOK(t, "x.ofx", []byte(text), Options{})
		checkRows(t, res, []Row{
			{Line: 5, Date: date(t, "2026-01-05"), Amount: 480, Direction: Debit, Description: "Bäcker", Payee: "Bäcker", BankID: "A1", Currency: "EUR"},
		}, []RowError{{Line: 6, Message: "the transaction has no TRNAMT (amount)"}})
	})
	t.Run("no OFX element", func(t *testing.T) {
		e := readFails(t, "x.ofx", []byte("OFXHEADER:100\nnothing here\n"), Options{})
		if e.Field != "file" || e.Message != "the file has no <OFX> element, so it is not an OFX statement" {
			t.Errorf("error %+v", e)
		}
	})
}

func TestReadQIF(t *testing.T) {
	res := readOK(t, "checking.qif", fixture(t, "checking.qif"), Options{})
	if res.Format != QIF || res.DateFormat != "MM/DD/YYYY" || res.DecimalSeparator != "." {
		t.Errorf("format %s date %q decimal %q; want qif MM/DD/YYYY .", res.Format, res.DateFormat, res.DecimalSeparator)
	}
	checkRows(t, res, []Row{
		{Line: 2, Date: date(t, "2026-01-02"), Amount: 123456, Direction: Debit, Description: "POS purchase", Payee: "SM Supermarket Makati", Category: "Groceries"},
		{Line: 8, Date: date(t, "2026-01-15"), Amount: 3500000, Direction: Credit, Description: "ACME Phils Inc", Payee: "ACME Phils Inc", Category: "Salary"},
		{Line: 13, Date: date(t, "2026-01-20"), Amount: 245000, Direction: Debit, Description: "Meralco", Payee: "Meralco", Category: "Utilities"},
	}, []RowError{
		{Line: 23, Message: `amount "12.3.4" is not a number`},
		{Line: 27, Message: `date "02/30/2026" is not a date in MM/DD/YYYY`},
	})

	t.Run("skips lists that are not transactions", func(t *testing.T) {
		text := "!Type:Cat\nNGroceries\nE\n^\n!Account\nNChecking\nTBank\n^\n!Type:CCard\nD15.01.2026\nT-1.234,50\nPLazada\n^\n"
		res := readOK(t, "x.qif", []byte(text), Options{})
		checkRows(t, res, []Row{{Line: 10, Date: date(t, "2026-01-15"), Amount: 123450, Direction: Debit, Description: "Lazada", Payee: "Lazada"}}, nil)
	})
}

func TestReadCAMT(t *testing.T) {
	t.Run("camt.053.001.02 with a batch", func(t *testing.T) {
		res := readOK(t, "camt053-v02.xml", fixture(t, "camt053-v02.xml"), Options{})
		if res.Format != CAMT || res.Currency != "EUR" {
			t.Errorf("format %s currency %q; want camt EUR", res.Format, res.Currency)
		}
		checkRows(t, res, []Row{
			{Line: 23, Date: date(t, "2026-01-02"), Amount: 123456, Direction: Debit, Description: "Stromabschlag Januar Vertrag 4711", Payee: "Stadtwerke München GmbH", BankID: "2026010200012345", Currency: "EUR"},
			{Line: 42, Date: date(t, "2026-01-15"), Amount: 345000, Direction: Credit, Description: "Gehalt Januar 2026", Payee: "Müller & Söhne KG", BankID: "2026011500000077", Currency: "EUR"},
			{Line: 59, Date: date(t, "2026-01-20"), Amount: 10000, Direction: Debit, Description: "Garage Januar", Payee: "Vermieter Schmidt", BankID: "2026012000000099-1", Currency: "EUR"},
			{Line: 59, Date: date(t, "2026-01-20"), Amount: 5000, Direction: Debit, Description: "Mitgliedsbeitrag", Payee: "Sportverein Eintracht e.V.", BankID: "2026012000000099-2", Currency: "EUR"},
			{Line: 83, Date: date(t, "2026-01-31"), Amount: 480, Direction: Debit, Description: "Kontoführungsentgelt", BankID: "2026013100000001", Currency: "EUR"},
		}, nil)
	})
	t.Run("camt.053.001.08", func(t *testing.T) {
		// Sts as a code, BookgDt as a date-time, parties wrapped in Pty.
		res := readOK(t, "camt053-v08.xml", fixture(t, "camt053-v08.xml"), Options{})
		checkRows(t, res, []Row{
			{Line: 8, Date: date(t, "2026-01-05"), Amount: 8990, Direction: Debit, Description: "Rechnung 2026-01", Payee: "Swisscom (Schweiz) AG", BankID: "CH-0001", Currency: "CHF"},
			{Line: 24, Date: date(t, "2026-01-25"), Amount: 720000, Direction: Credit, Description: "Lohn Januar", Payee: "Beispiel AG", BankID: "CH-0002", Currency: "CHF"},
		}, []RowError{{Line: 39, Message: `Amt "12.345" has more than 2 decimal places`}})
	})
	t.Run("camt.052 with a pending entry", func(t *testing.T) {
		res := readOK(t, "camt052-v04.xml", fixture(t, "camt052-v04.xml"), Options{})
		checkRows(t, res, []Row{
			{Line: 8, Date: date(t, "2026-02-03"), Amount: 2345, Direction: Debit, Description: "Albert Heijn 1234", Payee: "Albert Heijn 1234", BankID: "NL-1", Currency: "EUR"},
		}, []RowError{{Line: 19, Message: "the entry is not booked yet (status PDNG); only booked entries are read"}})
	})
	t.Run("declared and written in latin-1", func(t *testing.T) {
		text := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<Document><BkToCstmrStmt><Stmt><Acct><Ccy>EUR</Ccy></Acct>\n" +
			"<Ntry><Amt Ccy=\"EUR\">4.80</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-01-05</Dt></BookgDt>" +
			"<AcctSvcrRef>R1</AcctSvcrRef><AddtlNtryInf>B\xe4ckerei Gr\xf6\xdfer</AddtlNtryInf></Ntry></Stmt></BkToCstmrStmt></Document>"
		res := readOK(t, "x.xml", []byte(text), Options{})
		if res.Encoding != "windows-1252" {
			t.Errorf("encoding %q; want windows-1252", res.Encoding)
		}
		checkRows(t, res, []Row{{Line: 3, Date: date(t, "2026-01-05"), Amount: 480, Direction: Debit, Description: "Bäckerei Größer", BankID: "R1", Currency: "EUR"}}, nil)
	})
	t.Run("broken after the first entry", func(t *testing.T) {
		data := fixture(t, "camt053-v02.xml")
		cut := strings.Index(string(data), "<NtryRef>2</NtryRef>") + 10
		text := string(data[:cut]) + "</Ntry><<<"
		res := readOK(t, "x.xml", []byte(text), Options{})
		if len(res.Rows) != 1 || len(res.Errors) != 1 || res.Errors[0].Line != 42 || !strings.Contains(res.Errors[0].Message, "the XML is broken") {
			t.Errorf("rows %d errors %+v; want the first entry and an error at line 42", len(res.Rows), res.Errors)
		}
	})
	t.Run("broken with no entries", func(t *testing.T) {
		e := readFails(t, "x.xml", []byte("<?xml version=\"1.0\"?>\n<Document><BkToCstmrStmt>\n<Stmt><Ntry><Amt>1</Amt></Stmt>"), Options{})
		if e.Field != "file" || e.Line != 3 || !strings.Contains(e.Message, "the XML is broken") {
			t.Errorf("error %+v; want the broken XML named at line 3", e)
		}
	})
	t.Run("entity declarations refused", func(t *testing.T) {
		bomb := "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n]>\n" +
			"<Document><BkToCstmrStmt><Stmt><Ntry><AddtlNtryInf>&lol2;</AddtlNtryInf></Ntry></Stmt></BkToCstmrStmt></Document>"
		e := readFails(t, "x.xml", []byte(bomb), Options{})
		want := &Error{Line: 3, Field: "file", Message: "the file declares XML entities (<!ENTITY ...>), which no statement needs; it is refused"}
		checkError(t, want, e)
	})
}

func TestReadMT940(t *testing.T) {
	res := readOK(t, "statement.sta", fixture(t, "statement.sta"), Options{})
	if res.Format != MT940 || res.Currency != "EUR" {
		t.Errorf("format %s currency %q; want mt940 EUR", res.Format, res.Currency)
	}
	checkRows(t, res, []Row{
		// Structured :86: (?20 purpose with SVWZ+, ?32 name), entry date, funds code R.
		{Line: 6, Date: date(t, "2026-01-02"), Amount: 123456, Direction: Debit, Description: "Stromabschlag Januar Vertrag 4711", Payee: "Stadtwerke München GmbH", BankID: "2026010200012", Currency: "EUR"},
		// Free-text :86: over two lines.
		{Line: 9, Date: date(t, "2026-01-15"), Amount: 345000, Direction: Credit, Description: "Gehalt Januar 2026 Müller und Söhne KG", BankID: "2026011500077", Currency: "EUR"},
		// Value date 31 December, booked 2 January of the next year.
		{Line: 12, Date: date(t, "2026-01-02"), Amount: 480, Direction: Debit, Description: "Kontoführungsentgelt Dezember", Currency: "EUR"},
		// RC: the reversal of a credit takes money out.
		{Line: 15, Date: date(t, "2026-01-20"), Amount: 10000, Direction: Debit, Description: "Rückbuchung Gutschrift", BankID: "2026012000099", Currency: "EUR"},
	}, []RowError{{Line: 17, Message: `amount "12,345" has more than 2 decimal places`}})

	t.Run("not MT940", func(t *testing.T) {
		e := readFails(t, "x.sta", []byte("hello\nworld\n"), Options{Format: MT940})
		if e.Field != "file" || !strings.Contains(e.Message, "not an MT940 statement") {
			t.Errorf("error %+v", e)
		}
	})
}

package importfile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/finance-app/finance/finance"
)

// header indexes a CSV header by its normalized names (lower case, blanks
// collapsed), keeping the file's own spelling for the mapping shown back.
type header struct {
	names []string       // as written, trimmed
	index map[string]int // normalized -> first column with that name
}

func newHeader(rec []string) header {
	h := header{names: make([]string, len(rec)), index: map[string]int{}}
	for i, c := range rec {
		h.names[i] = clean(c)
		n := normName(c)
		if _, dup := h.index[n]; !dup {
			h.index[n] = i
		}
	}
	return h
}

func normName(s string) string { return strings.ToLower(clean(strings.Trim(s, "\"'\uFEFF"))) }

func (h header) has(names ...string) bool {
	for _, n := range names {
		if _, ok := h.index[n]; !ok {
			return false
		}
	}
	return true
}

// first returns the file's spelling of the first of the names the header
// has, or "".
func (h header) first(names ...string) string {
	for _, n := range names {
		if i, ok := h.index[n]; ok {
			return h.names[i]
		}
	}
	return ""
}

// preset is the layout of another app's export: how to recognise its
// header and how to read it. Each layout's source is in testdata/README.md.
type preset struct {
	name       string
	dateFormat string // the app's own date format, which settles "05/01/2026"
	match      func(h header) (Mapping, bool)
}

var presets = []preset{
	{name: "firefly", dateFormat: "YYYY-MM-DD", match: func(h header) (Mapping, bool) {
		// Firefly III's export: the amount is signed from the account's
		// side, and the type (Withdrawal, Deposit, Transfer, Opening
		// balance) says it again in words.
		return Mapping{Date: "date", Amount: "amount", Description: "description", Payee: "destination_name",
				PayeeIn: "source_name", Category: "category", Reference: "journal_id", Type: "type", Currency: "currency_code"},
			h.has("journal_id", "date", "amount", "source_name", "destination_name", "type")
	}},
	{name: "ezbookkeeping", dateFormat: "YYYY-MM-DD", match: func(h header) (Mapping, bool) {
		// ezbookkeeping's amounts are unsigned: the Type column (Expense,
		// Income, Transfer, Balance Modification) decides.
		return Mapping{Date: "Time", Amount: "Amount", Description: "Description",
				Category: h.first("sub category", "category"), Type: "Type", Currency: "Account Currency"},
			h.has("time", "timezone", "type", "category", "account", "amount")
	}},
	{name: "ynab", dateFormat: "MM/DD/YYYY", match: func(h header) (Mapping, bool) {
		return Mapping{Date: "Date", Debit: "Outflow", Credit: "Inflow", Description: "Memo", Payee: "Payee",
				Category: h.first("category", "category group/category")},
			h.has("account", "date", "payee", "outflow", "inflow")
	}},
	{name: "actual", dateFormat: "YYYY-MM-DD", match: func(h header) (Mapping, bool) {
		return Mapping{Date: "Date", Amount: "Amount", Description: "Notes", Payee: "Payee", Category: "Category"},
			h.has("account", "date", "payee", "notes", "category", "amount")
	}},
	{name: "finance", dateFormat: "YYYY-MM-DD", match: func(h header) (Mapping, bool) {
		// This app's web CSV downloads: expenses (money out, amounts
		// positive) and income (money in).
		switch {
		case h.startsWith("date", "description", "category", "payment_method", "amount"):
			return Mapping{Date: "date", Amount: "amount", Negate: true, Description: "description", Category: "category", Reference: "id"}, true
		case h.startsWith("date", "description", "category", "amount", "account_id"):
			return Mapping{Date: "date", Amount: "amount", Description: "description", Category: "category", Reference: "id"}, true
		}
		return Mapping{}, false
	}},
}

func (h header) startsWith(names ...string) bool {
	if len(h.names) < len(names) {
		return false
	}
	for i, n := range names {
		if normName(h.names[i]) != n {
			return false
		}
	}
	return true
}

// The header names of generic bank CSVs, most specific first.
var (
	dateNames = []string{"date", "booking date", "posting date", "posted date", "post date", "transaction date", "trans date",
		"txn date", "tran date", "value date", "buchungstag", "buchungsdatum", "datum", "fecha", "date posted"}
	amountNames = []string{"amount", "transaction amount", "amount (php)", "amount (eur)", "amount (usd)", "amt", "betrag",
		"betrag (eur)", "importe", "montant"}
	debitNames = []string{"debit", "debits", "debit amount", "withdrawal", "withdrawals", "withdrawal amount", "money out",
		"paid out", "outflow", "soll", "charges"}
	creditNames = []string{"credit", "credits", "credit amount", "deposit", "deposits", "deposit amount", "money in",
		"paid in", "inflow", "haben", "payments"}
	descriptionNames = []string{"description", "transaction description", "details", "transaction details", "narrative",
		"particulars", "memo", "remarks", "verwendungszweck", "buchungstext", "concepto", "libellé", "libelle"}
	payeeNames     = []string{"payee", "merchant", "merchant name", "name", "payee name", "counterparty", "beneficiary", "auftraggeber/empfänger", "empfänger"}
	categoryNames  = []string{"category"}
	referenceNames = []string{"reference", "reference no.", "reference no", "reference number", "ref no.", "ref no", "ref",
		"transaction id", "transaction reference", "fitid"}
	currencyNames = []string{"currency", "ccy", "währung", "waehrung"}
	typeNames     = []string{"dr/cr", "cr/dr", "debit/credit", "transaction type", "type"}
)

// genericMapping maps a bank's header by the usual names of its columns.
func genericMapping(h header) (Mapping, bool) {
	m := Mapping{
		Date: h.first(dateNames...), Amount: h.first(amountNames...), Debit: h.first(debitNames...), Credit: h.first(creditNames...),
		Description: h.first(descriptionNames...), Payee: h.first(payeeNames...), Category: h.first(categoryNames...),
		Reference: h.first(referenceNames...), Currency: h.first(currencyNames...), Type: h.first(typeNames...),
	}
	if m.Amount != "" {
		m.Debit, m.Credit = "", ""
	}
	return m, m.Date != "" && (m.Amount != "" || m.Debit != "" || m.Credit != "")
}

// detectMapping maps a header by a preset, then by generic names.
func detectMapping(h header) (Mapping, *preset, bool) {
	for i := range presets {
		if m, ok := presets[i].match(h); ok {
			return m, &presets[i], true
		}
	}
	m, ok := genericMapping(h)
	return m, nil, ok
}

// csvPlan is a mapping resolved to column positions (-1: not in the file).
type csvPlan struct {
	date, amount, debit, credit, description, payee, payeeIn, category, reference, typ, currency int
	negate                                                                                       bool
	layout                                                                                       dateLayout
	dec                                                                                          byte
}

// resolve turns the mapping's column names or numbers into positions.
func resolve(m Mapping, h *header, width int) (csvPlan, error) {
	p := csvPlan{negate: m.Negate}
	var problems []string
	col := func(field, spec string) int {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			return -1
		}
		if n, ok := number(spec); ok {
			if n < 1 || n > width {
				problems = append(problems, fmt.Sprintf("%s column %d is not in the file, which has %d columns", field, n, width))
				return -1
			}
			return n - 1
		}
		if h != nil {
			if i, ok := h.index[normName(spec)]; ok {
				return i
			}
		}
		problems = append(problems, fmt.Sprintf("%s column %s is not in the file's header", field, quote(spec)))
		return -1
	}
	p.date = col("date", m.Date)
	p.amount = col("amount", m.Amount)
	p.debit = col("debit", m.Debit)
	p.credit = col("credit", m.Credit)
	p.description = col("description", m.Description)
	p.payee = col("payee", m.Payee)
	p.payeeIn = col("payee_in", m.PayeeIn)
	p.category = col("category", m.Category)
	p.reference = col("reference", m.Reference)
	p.typ = col("type", m.Type)
	p.currency = col("currency", m.Currency)
	switch {
	case len(problems) > 0:
	case m.Date == "":
		problems = append(problems, "the mapping names no date column")
	case m.Amount == "" && m.Debit == "" && m.Credit == "":
		problems = append(problems, "the mapping names no amount column, nor debit and credit columns")
	}
	if len(problems) > 0 {
		msg := strings.Join(problems, "; ")
		if h != nil {
			msg += "; the columns are: " + strings.Join(h.names, ", ")
		}
		return p, &Error{Field: "mapping", Message: msg}
	}
	return p, nil
}

var delimiters = []byte{',', ';', '\t', '|'}

// detectDelimiter picks the delimiter that splits the most of the first
// lines into the same number of cells, the larger number among equals: a
// ";" file of "1.234,56" amounts has a steady count of commas too, but
// fewer, and none in its header.
func detectDelimiter(body string) byte {
	var lines []string
	for l := range strings.Lines(body) {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
		if len(lines) == 30 {
			break
		}
	}
	best, bestFreq, bestCount := byte(','), 0, 0
	for _, d := range delimiters {
		freq := map[int]int{}
		for _, l := range lines {
			if c := countOutsideQuotes(l, d); c > 0 {
				freq[c]++
			}
		}
		for c, f := range freq {
			if f > bestFreq || f == bestFreq && c > bestCount {
				best, bestFreq, bestCount = d, f, c
			}
		}
	}
	return best
}

func countOutsideQuotes(line string, d byte) int {
	n, quoted := 0, false
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			quoted = !quoted
		case d:
			if !quoted {
				n++
			}
		}
	}
	return n
}

func delimiterNamed(s string) (byte, bool) {
	switch s {
	case ",", ";", "|", "\t":
		return s[0], true
	case "tab", `\t`, "TAB":
		return '\t', true
	}
	return 0, false
}

// skipLines cuts n lines off the text and returns the rest and how many
// lines were cut.
func skipLines(text string, n int) (string, int) {
	cut := 0
	for cut < n {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return "", cut + 1
		}
		text = text[i+1:]
		cut++
	}
	return text, cut
}

// headerSearchLines is how far down a file the header is looked for:
// banks print the account's name, number and period above it.
const headerSearchLines = 30

// columnNumbers names the columns of a file without a header by number,
// as a mapping names them, up to the widest record.
func columnNumbers(records [][]string) []string {
	width := 0
	for _, rec := range records {
		width = max(width, len(rec))
	}
	out := make([]string, width)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}

func readCSV(text string, opt Options) (*Result, error) {
	if err := checkLineLengths(text); err != nil {
		return nil, err
	}
	var m Mapping
	if opt.Mapping != nil {
		m = *opt.Mapping
	}
	given := m.Date != "" || m.Amount != "" || m.Debit != "" || m.Credit != ""
	if m.SkipLines < 0 {
		return nil, &Error{Field: "mapping", Message: "skip_lines must not be negative"}
	}
	body, skipped := skipLines(text, m.SkipLines)
	var delim byte
	if m.Delimiter != "" {
		d, ok := delimiterNamed(m.Delimiter)
		if !ok {
			return nil, &Error{Field: "mapping", Message: fmt.Sprintf("delimiter %q is not one of \",\" \";\" tab \"|\"", m.Delimiter)}
		}
		delim = d
	} else {
		delim = detectDelimiter(body)
	}

	r := csv.NewReader(strings.NewReader(body))
	r.Comma = rune(delim)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true // a bare quote inside a cell ("12" screen") is common in bank exports
	var records [][]string
	var lines []int
	for len(records) <= opt.MaxRows+headerSearchLines {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fileError(pe.StartLine+skipped, "the CSV cannot be read: %v", pe.Err)
			}
			return nil, fileError(0, "the CSV cannot be read: %v", err)
		}
		if blank(rec) {
			continue
		}
		line, _ := r.FieldPos(0)
		records, lines = append(records, rec), append(lines, line+skipped)
	}
	if len(records) == 0 {
		return nil, fileError(0, "the file has no rows")
	}

	res := &Result{}
	var pre *preset
	at := -1 // the header's record, -1 for none
	switch {
	case m.Header != nil && *m.Header:
		at = 0
	case m.Header != nil:
	case given:
		at = findHeader(records, func(h header) bool { return nameIn(h, m.Date) })
	default:
		at = findHeader(records, func(h header) bool { _, _, ok := detectMapping(h); return ok })
	}
	if at < 0 && m.Header == nil && !anyDate(records[0]) {
		at = 0 // a header, though not one this reader recognises
	}
	var hdr *header
	if at >= 0 {
		h := newHeader(records[at])
		hdr = &h
		res.Columns = h.names
		m.SkipLines = lines[at] - 1
		records, lines = records[at+1:], lines[at+1:]
		detected, p, ok := detectMapping(h)
		if p != nil {
			res.Preset, pre = p.name, p
		} else if ok {
			res.Preset = "generic"
		}
		if !given {
			if !ok {
				return nil, &Error{Field: "mapping", Message: "no date and amount columns were recognised; map them by name. The columns are: " + strings.Join(h.names, ", "),
					Columns: h.names}
			}
			detected.Negate = detected.Negate != m.Negate
			detected.Delimiter, detected.SkipLines = m.Delimiter, m.SkipLines
			m = detected
		}
	} else if !given {
		return nil, &Error{Field: "mapping", Message: "the file has no header row; map its columns by number (date, amount or debit and credit, description)",
			Columns: columnNumbers(records)}
	}
	hasHeader := at >= 0
	m.Header = &hasHeader
	m.Delimiter = string(delim)
	if len(records) > opt.MaxRows {
		return nil, fileError(lines[opt.MaxRows], "the file has more than %d rows; split it into smaller files", opt.MaxRows)
	}

	width := 0
	for _, rec := range records {
		width = max(width, len(rec))
	}
	if hdr != nil {
		width = max(width, len(hdr.names))
	}
	plan, err := resolve(m, hdr, width)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Columns = res.Columns
			if hdr == nil {
				e.Columns = columnNumbers(records)
			}
		}
		return nil, err
	}
	column := func(i int) []string {
		var vs []string
		if i < 0 {
			return nil
		}
		for _, rec := range records {
			if i < len(rec) && strings.TrimSpace(rec[i]) != "" {
				vs = append(vs, strings.TrimSpace(rec[i]))
			}
		}
		return vs
	}
	if opt.DecimalSeparator != "" {
		plan.dec = opt.DecimalSeparator[0]
	} else {
		plan.dec = detectDecimal(slices.Concat(column(plan.amount), column(plan.debit), column(plan.credit)))
	}
	if opt.DateFormat != "" {
		plan.layout, _ = layoutNamed(opt.DateFormat)
	} else {
		preferred := ""
		if pre != nil {
			preferred = pre.dateFormat
		}
		if plan.layout, err = detectDateLayout(column(plan.date), preferred); err != nil {
			return nil, err
		}
	}
	res.DateFormat, res.DecimalSeparator = plan.layout.name, string(plan.dec)
	res.Mapping = &m

	currencies := map[string]bool{}
	for i, rec := range records {
		row, problem := plan.row(rec)
		row.Line = lines[i]
		if problem != "" {
			res.Errors = append(res.Errors, RowError{Line: lines[i], Message: problem})
			continue
		}
		currencies[row.Currency] = true
		res.Rows = append(res.Rows, row)
	}
	if len(currencies) == 1 {
		for c := range currencies {
			res.Currency = c
		}
	}
	return res, nil
}

// findHeader returns the first record, among the first lines, that is a
// header by the test; -1 when none is.
func findHeader(records [][]string, isHeader func(header) bool) int {
	for i := range min(len(records), headerSearchLines) {
		if isHeader(newHeader(records[i])) {
			return i
		}
	}
	return -1
}

func nameIn(h header, spec string) bool {
	if _, isNumber := number(strings.TrimSpace(spec)); isNumber {
		return false
	}
	_, ok := h.index[normName(spec)]
	return ok
}

func anyDate(rec []string) bool {
	for _, c := range rec {
		for _, l := range dateLayouts {
			if _, ok := l.parse(c); ok {
				return true
			}
		}
	}
	return false
}

func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// row reads one record, or says in words why it cannot.
func (p csvPlan) row(rec []string) (Row, string) {
	get := func(i int) string {
		if i < 0 || i >= len(rec) {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	var row Row
	dateText := get(p.date)
	d, ok := p.layout.parse(dateText)
	if !ok {
		return row, dateProblem(dateText, p.layout)
	}
	row.Date = d
	if p.amount >= 0 {
		text := get(p.amount)
		if text == "" {
			return row, "the amount is empty"
		}
		amount, neg, err := parseAmount(text, p.dec)
		if err == nil && amount == 0 {
			err = errZeroAmount
		}
		if err != nil {
			return row, amountProblem("amount", text, err)
		}
		row.Amount, row.Direction = amount.Abs(), signed(neg != p.negate)
	} else {
		debit, problem := p.optionalAmount("debit", get(p.debit))
		if problem != "" {
			return row, problem
		}
		credit, problem := p.optionalAmount("credit", get(p.credit))
		if problem != "" {
			return row, problem
		}
		switch {
		case debit != 0 && credit != 0:
			return row, "both the debit and the credit column have an amount"
		case debit != 0:
			row.Amount, row.Direction = debit, Debit
		case credit != 0:
			row.Amount, row.Direction = credit, Credit
		default:
			return row, "neither the debit nor the credit column has an amount"
		}
		if p.negate {
			row.Direction = signed(row.Direction == Credit)
		}
	}
	if dir, ok := typeDirection(get(p.typ)); ok {
		row.Direction = dir
	}
	row.Payee = clean(get(p.payee))
	if p.payeeIn >= 0 && row.Direction == Credit {
		row.Payee = clean(get(p.payeeIn))
	}
	row.Category = clean(get(p.category))
	row.Description = firstNonEmpty(clean(get(p.description)), row.Payee, row.Category)
	row.BankID = get(p.reference)
	if c := strings.ToUpper(get(p.currency)); len(c) == 3 && isLetter(c[0]) && isLetter(c[1]) && isLetter(c[2]) {
		row.Currency = c
	}
	return row, ""
}

// optionalAmount reads a debit or credit cell: empty or zero is 0.
func (p csvPlan) optionalAmount(what, text string) (finance.Money, string) {
	if text == "" {
		return 0, ""
	}
	m, _, err := parseAmount(text, p.dec)
	if err != nil {
		return 0, amountProblem(what, text, err)
	}
	return m.Abs(), ""
}

// typeDirection reads a type column's word; ok is false for words that
// leave the direction to the amount's sign (Balance Modification, Opening
// balance, Reconciliation, or anything unknown). A transfer is read from
// the side of the account the file is about: money leaving it.
func typeDirection(word string) (Direction, bool) {
	switch strings.ToLower(strings.TrimSpace(word)) {
	case "expense", "withdrawal", "debit", "dr", "d", "transfer", "purchase":
		return Debit, true
	case "income", "deposit", "credit", "cr", "c", "refund":
		return Credit, true
	}
	return "", false
}

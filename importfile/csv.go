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
	for ; cut < n; cut++ {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return "", cut
		}
		text = text[i+1:]
	}
	return text, cut
}

// headerSearchLines is how far down a file the header is looked for:
// banks print the account's name, number and period above it.
const headerSearchLines = 30

// csvRecords are a file's non-blank records with the physical line each
// starts on.
type csvRecords struct {
	cells [][]string
	lines []int
}

func (rs csvRecords) from(i int) csvRecords { return csvRecords{rs.cells[i:], rs.lines[i:]} }

// column returns the non-empty cells of column i.
func (rs csvRecords) column(i int) []string {
	if i < 0 {
		return nil
	}
	var vs []string
	for _, rec := range rs.cells {
		if i < len(rec) && strings.TrimSpace(rec[i]) != "" {
			vs = append(vs, strings.TrimSpace(rec[i]))
		}
	}
	return vs
}

// readRecords splits the text into records, stopping after limit of them
// so a huge file is not held whole; skipped is the number of lines cut
// above the text, to number lines as the file does.
func readRecords(body string, delim byte, skipped, limit int) (csvRecords, error) {
	r := csv.NewReader(strings.NewReader(body))
	r.Comma = rune(delim)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true // a bare quote inside a cell ("12" screen") is common in bank exports
	var rs csvRecords
	for len(rs.cells) <= limit {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return rs, fileError(pe.StartLine+skipped, "the CSV cannot be read: %v", pe.Err)
			}
			return rs, fileError(0, "the CSV cannot be read: %v", err)
		}
		if blank(rec) {
			continue
		}
		line, _ := r.FieldPos(0)
		rs.cells, rs.lines = append(rs.cells, rec), append(rs.lines, line+skipped)
	}
	return rs, nil
}

// locateHeader returns the index of the header record, -1 for none: the
// record the caller's mapping names, or the first one a preset or the
// generic names recognise, or else the first record unless it holds a date.
func locateHeader(rs csvRecords, m Mapping, given bool) int {
	at := -1
	switch {
	case m.Header != nil && *m.Header:
		return 0
	case m.Header != nil:
		return -1
	case given:
		at = findHeader(rs.cells, func(h header) bool { return nameIn(h, m.Date) })
	default:
		at = findHeader(rs.cells, func(h header) bool { _, _, ok := detectMapping(h); return ok })
	}
	if at < 0 && !anyDate(rs.cells[0]) {
		at = 0 // a header, though not one this reader recognises
	}
	return at
}

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
	delim := detectDelimiter(body)
	if m.Delimiter != "" {
		d, ok := delimiterNamed(m.Delimiter)
		if !ok {
			return nil, &Error{Field: "mapping", Message: fmt.Sprintf("delimiter %q is not one of \",\" \";\" tab \"|\"", m.Delimiter)}
		}
		delim = d
	}
	records, err := readRecords(body, delim, skipped, opt.MaxRows+headerSearchLines)
	if err != nil {
		return nil, err
	}
	if len(records.cells) == 0 {
		return nil, fileError(0, "the file has no rows")
	}

	res := &Result{}
	var hdr *header
	preferredDates := ""
	if at := locateHeader(records, m, given); at >= 0 {
		h := newHeader(records.cells[at])
		hdr = &h
		res.Columns = h.names
		m.SkipLines = records.lines[at] - 1
		records = records.from(at + 1)
		detected, p, ok := detectMapping(h)
		switch {
		case p != nil:
			res.Preset, preferredDates = p.name, p.dateFormat
		case ok:
			res.Preset = "generic"
		}
		if !given {
			if !ok {
				return nil, &Error{Field: "mapping", Message: "no date and amount columns were recognised; map them by name. The columns are: " + strings.Join(h.names, ", "),
					Columns: h.names}
			}
			// The caller's negate stands beside a preset's own (this app's
			// expenses are money out already), never undoing it.
			detected.Negate = detected.Negate || m.Negate
			detected.SkipLines = m.SkipLines
			m = detected
		}
	} else if !given {
		guessed, ok := guessColumns(records)
		if !ok {
			return nil, &Error{Field: "mapping", Message: "the file has no header row and its date and amount columns could not be told apart; map its columns by number (date, amount or debit and credit, description). The first row is: " +
				strings.Join(records.cells[0], " | "), Columns: columnNumbers(records.cells)}
		}
		guessed.Negate, guessed.SkipLines = m.Negate, m.SkipLines
		m = guessed
	}
	m.Header = ptrTo(hdr != nil)
	m.Delimiter = string(delim)
	if len(records.cells) > opt.MaxRows {
		return nil, fileError(records.lines[opt.MaxRows], "the file has more than %d rows; split it into smaller files", opt.MaxRows)
	}

	width := 0
	for _, rec := range records.cells {
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
				e.Columns = columnNumbers(records.cells)
			}
		}
		return nil, err
	}
	amounts := slices.Concat(records.column(plan.amount), records.column(plan.debit), records.column(plan.credit))
	plan.dec = chooseDecimal(amounts, opt.DecimalSeparator)
	if plan.layout, err = chooseLayout(records.column(plan.date), opt.DateFormat, preferredDates); err != nil {
		return nil, err
	}
	res.DateFormat, res.DecimalSeparator = plan.layout.name, string(plan.dec)
	res.Mapping = &m

	currencies := map[string]bool{}
	for i, rec := range records.cells {
		row, problem := plan.row(rec)
		row.Line = records.lines[i]
		if problem != "" {
			res.Errors = append(res.Errors, RowError{Line: row.Line, Message: problem})
			continue
		}
		currencies[row.Currency] = true
		res.Rows = append(res.Rows, row)
	}
	// A currency column that says one currency throughout is the file's.
	if len(currencies) == 1 {
		for c := range currencies {
			res.Currency = c
		}
	}
	return res, nil
}

func ptrTo[T any](v T) *T { return &v }

// guessSample is how many rows of a file without a header its columns are
// guessed from.
const guessSample = 20

// guessColumns maps a file without a header by its cells: the date column
// is the one whose cells read as dates; the amounts are the columns whose
// every cell is a number. One such column is the amount; two that are
// never filled on the same row are debit and credit; otherwise the first
// is the amount and the next a running balance. The description is the
// longest text. The result is a mapping by column number that the caller
// shows and can correct.
func guessColumns(rs csvRecords) (Mapping, bool) {
	sample := rs.cells[:min(len(rs.cells), guessSample)]
	width := 0
	for _, rec := range sample {
		width = max(width, len(rec))
	}
	date, description, longest := -1, -1, 0
	var numbers []int
	for c := range width {
		dates, amounts, filled, length := 0, 0, 0, 0
		for _, rec := range sample {
			if c >= len(rec) || strings.TrimSpace(rec[c]) == "" {
				continue
			}
			cell := strings.TrimSpace(rec[c])
			filled++
			length += len(cell)
			if anyDate([]string{cell}) {
				dates++
			}
			if _, _, err := parseAmount(cell, 0); err == nil {
				amounts++
			}
		}
		switch {
		case filled == 0:
		case date < 0 && dates*2 > len(sample):
			date = c
		case amounts == filled:
			numbers = append(numbers, c)
		case length > longest:
			description, longest = c, length
		}
	}
	m := Mapping{}
	if date < 0 || len(numbers) == 0 {
		return m, false
	}
	col := func(i int) string { return strconv.Itoa(i + 1) }
	m.Date = col(date)
	if description >= 0 {
		m.Description = col(description)
	}
	if len(numbers) >= 2 && neverTogether(sample, numbers[0], numbers[1]) {
		m.Debit, m.Credit = col(numbers[0]), col(numbers[1])
	} else {
		m.Amount = col(numbers[0])
	}
	return m, true
}

// neverTogether reports whether no row fills both columns a and b.
func neverTogether(rows [][]string, a, b int) bool {
	for _, rec := range rows {
		if a < len(rec) && b < len(rec) && strings.TrimSpace(rec[a]) != "" && strings.TrimSpace(rec[b]) != "" {
			return false
		}
	}
	return true
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
		amount, neg, err := rowAmount(text, p.dec)
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

package ai

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/finance-app/finance/finance"
)

// Engine names, as replies report which one answered.
const (
	EngineBuiltin = "builtin" // the built-in parser (text) or receipt reader (OCR text)
	EngineOpenAI  = "openai"  // an OpenAI-compatible chat-completions service
	EngineOCR     = "ocr"     // OCR of the image, then the built-in receipt reader
)

// Result is the answer of a parse: the drafts, the engine that made them,
// and what the person should know about them.
type Result struct {
	Items    []finance.ExpenseDraft `json:"items"`
	Engine   string                 `json:"engine"`
	Warnings []string               `json:"warnings"`
}

// ParseText is the built-in parser: it reads the way people jot expenses
// ("lunch 250 cash yesterday, grab 180 gcash") into drafts, using only the
// user's own data in in. It is deterministic, offline and always available.
func ParseText(in finance.ParseInputs, text string) Result {
	p := newParser(in)
	items := p.expenses(text)
	res := Result{Items: []finance.ExpenseDraft{}, Engine: EngineBuiltin, Warnings: []string{}}
	if len(items) > finance.MaxParseItems {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the text holds more than %d expenses; only the first %d were read",
			finance.MaxParseItems, finance.MaxParseItems))
		items = items[:finance.MaxParseItems]
	}
	// An expense without a date of its own shares the date of the one
	// before it ("lunch 250 yesterday, grab 180": both yesterday), or of the
	// first one after it when none before has one ("lunch 250, taxi 100
	// yesterday"), else it is today. Each of those is a guess, and so is a
	// rough date of its own ("last week"); a date it names is not.
	dates := make([]datedAs, len(items))
	var carried *finance.Date
	for i, item := range items {
		if d, approx, ok := ownDate(item); ok {
			carried = &d
			dates[i] = datedAs{date: &d, guessed: approx}
			continue
		}
		dates[i] = datedAs{date: carried, guessed: true}
	}
	for i := 0; i < len(items) && dates[i].date == nil; i++ {
		for _, later := range dates[i:] {
			if later.date != nil {
				dates[i].date = later.date
				break
			}
		}
	}
	for i, item := range items {
		d, warnings := p.draft(item, dates[i])
		res.Items = append(res.Items, d)
		for _, w := range warnings {
			res.Warnings = append(res.Warnings, fmt.Sprintf("items[%d]: %s", i, w))
		}
	}
	return res
}

// expenses reads a note into the spans of each expense it holds.
func (p *parser) expenses(text string) [][]span {
	var pieces [][]span
	for _, seg := range splitSegments(text) {
		spans := p.classify(tokenize(seg))
		if len(spans) > 0 {
			pieces = append(pieces, spans)
		}
	}
	pieces = mergeAmountless(pieces)
	var items [][]span
	for _, piece := range pieces {
		for _, part := range splitAtConnectors(piece) {
			items = append(items, splitAtAmounts(part)...)
		}
	}
	return items
}

// spanKind is what a run of tokens means.
type spanKind int

const (
	kWord spanKind = iota
	kAmount
	kDate
	kMethod
	kConnector
	kIgnored // a time of day: no field holds it
)

type span struct {
	kind   spanKind
	raw    string // as typed
	norm   string // lowercase
	amount amount
	date   finance.Date
	approx bool // the date phrase names the day only roughly ("last week")
	method methodHit
}

// datedAs is the date a draft gets (nil: today) and whether it is a guess.
type datedAs struct {
	date    *finance.Date
	guessed bool
}

// methodHit is a payment the text names.
type methodHit struct {
	// method is finance.MethodCash, MethodAccountDebit or MethodCreditCard;
	// "" when a bank's name alone does not say which ("bdo").
	method string
	id     *string // the account or card, when known
	named  bool    // a record named by its name or last four
	// brand is a bank or e-wallet word ("metrobank", "gcash") naming an
	// account or card the person may or may not have.
	brand   string
	generic string // the generic word ("card", "debit") when no record is named
}

// rank orders the payments an expense names: a record beats a bank or
// e-wallet, which beats a generic word; among equals the first one counts.
func (h methodHit) rank() int {
	switch {
	case h.named:
		return 2
	case h.brand != "":
		return 1
	}
	return 0
}

type parser struct {
	in       finance.ParseInputs
	dates    dateReader
	records  []record
	history  historyIndex
	category map[string]string // normalized category name -> name, the user's active expense categories
}

// record is an account or card the text may name.
type record struct {
	words []string // the normalized name
	id    string
	card  bool
	last4 string
	typ   finance.AccountType
}

func newParser(in finance.ParseInputs) *parser {
	p := &parser{in: in, dates: newDateReader(in.Today, in.DateFormat), category: map[string]string{}}
	for _, a := range in.Accounts {
		p.records = append(p.records, record{words: normalizeName(a.Name), id: a.ID, typ: a.Type})
	}
	for _, c := range in.Cards {
		r := record{words: normalizeName(c.Name), id: c.ID, card: true}
		if c.LastFour != nil {
			r.last4 = *c.LastFour
		}
		p.records = append(p.records, r)
	}
	for _, c := range in.Categories {
		p.category[strings.Join(normalizeName(c.Name), " ")] = c.Name
	}
	p.history = newHistoryIndex(in.History, p.category)
	return p
}

// splitSegments cuts a message at the marks that always end an expense:
// line breaks, semicolons, and commas that are not inside a number
// ("1,250") or before a year ("Nov 3, 2025").
func splitSegments(text string) []string {
	rs := []rune(text)
	var out []string
	start := 0
	cut := func(i int) {
		out = append(out, string(rs[start:i]))
		start = i + 1
	}
	for i, r := range rs {
		prevDigit := i > 0 && unicode.IsDigit(rs[i-1])
		nextDigit := i+1 < len(rs) && unicode.IsDigit(rs[i+1])
		switch r {
		case '\n', '\r', ';', '|', '•':
			cut(i)
		case ',':
			if prevDigit && nextDigit {
				continue
			}
			if prevDigit && yearFollows(rs[i+1:]) {
				continue
			}
			cut(i)
		case '.':
			// "lunch 250. coffee 100": a full stop after a number ends a sentence.
			if prevDigit && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) {
				cut(i)
			}
		}
	}
	out = append(out, string(rs[start:]))
	return out
}

var yearAheadRE = lazyRegexp(`^\s*(19|20)\d{2}\b`)

func yearFollows(rs []rune) bool {
	rest := string(rs[:min(len(rs), 8)])
	return yearAheadRE().MatchString(rest)
}

var (
	fourDigitsRE = lazyRegexp(`^\d{4}$`)
	lastFourRE   = lazyRegexp(`^[x*•#]+(\d{4})$`)
	timeRE       = lazyRegexp(`^\d{1,2}(:\d{2})?(am|pm|nn|h)$|^\d{1,2}:\d{2}$`)
	quantityRE   = lazyRegexp(`^(x\d{1,3}|\d{1,3}x|\d+(pcs|pc|kg|kgs|g|ml|l|pax)|\d+(st|nd|rd|th))$`)
)

// tokenize splits a segment into words, with the punctuation around them dropped.
func tokenize(seg string) []string {
	seg = strings.Map(func(r rune) rune {
		switch r {
		case '(', ')', '[', ']', '{', '}', '"', '“', '”', '!', '?', '=':
			return ' '
		}
		return r
	}, strings.ReplaceAll(seg, "@", " at "))
	var out []string
	for _, f := range strings.Fields(seg) {
		// "lunch:250": a colon that is not in a time of day separates.
		for _, part := range splitColon(f) {
			if lastFourRE().MatchString(strings.ToLower(part)) {
				out = append(out, part)
				continue
			}
			t := strings.TrimLeft(part, "'*-–—~>")
			t = strings.TrimRight(t, "'.,:…~")
			if t == "" && (part == "&" || part == "+") {
				t = part
			}
			if t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

func splitColon(f string) []string {
	if !strings.Contains(f, ":") || timeRE().MatchString(strings.ToLower(f)) {
		return []string{f}
	}
	return strings.FieldsFunc(f, func(r rune) bool { return r == ':' })
}

// classify reads the tokens of a segment into spans.
func (p *parser) classify(toks []string) []span {
	norms := make([]string, len(toks))
	for i, t := range toks {
		norms[i] = strings.ToLower(t)
	}
	var out []span
	for i := 0; i < len(toks); {
		raw := func(n int) string { return strings.Join(toks[i:i+n], " ") }
		norm := func(n int) string { return strings.Join(norms[i:i+n], " ") }
		if timeRE().MatchString(norms[i]) {
			out = append(out, span{kind: kIgnored, raw: raw(1), norm: norm(1)})
			i++
			continue
		}
		if d, n, approx := p.dates.match(norms, i); n > 0 {
			out = append(out, span{kind: kDate, raw: raw(n), norm: norm(n), date: d, approx: approx})
			i += n
			continue
		}
		if quantityRE().MatchString(norms[i]) {
			out = append(out, span{kind: kWord, raw: raw(1), norm: norm(1)})
			i++
			continue
		}
		if hit, n := p.matchRecord(norms, i); n > 0 {
			out = append(out, span{kind: kMethod, raw: raw(n), norm: norm(n), method: hit})
			i += n
			continue
		}
		if a, n := matchAmount(norms, i); n > 0 {
			out = append(out, span{kind: kAmount, raw: raw(n), norm: norm(n), amount: a})
			i += n
			continue
		}
		if _, ok := parseAmountToken(norms[i]); ok && i+1 < len(norms) && quantityUnits[norms[i+1]] {
			// "2 pcs", "5 kg": counted things, part of the description.
			out = append(out, span{kind: kWord, raw: raw(2), norm: norm(2)})
			i += 2
			continue
		}
		if hit, n := p.matchMethodWord(norms, i, out); n > 0 {
			out = append(out, span{kind: kMethod, raw: raw(n), norm: norm(n), method: hit})
			i += n
			continue
		}
		if connectorWords[norms[i]] {
			out = append(out, span{kind: kConnector, raw: raw(1), norm: norm(1)})
			i++
			continue
		}
		out = append(out, span{kind: kWord, raw: raw(1), norm: norm(1)})
		i++
	}
	return out
}

// matchAmount reads an amount at toks[i:], with a currency word before or
// after the number ("PHP 300", "300 pesos").
func matchAmount(toks []string, i int) (amount, int) {
	if cur, ok := isCurrencyWord(toks[i]); ok && i+1 < len(toks) {
		if a, ok := parseAmountToken(toks[i+1]); ok && a.currency == "" {
			a.currency, a.strong = cur, true
			if i+2 < len(toks) && quantityUnits[toks[i+2]] {
				return amount{}, 0
			}
			return a, 2
		}
	}
	a, ok := parseAmountToken(toks[i])
	if !ok {
		return amount{}, 0
	}
	if i+1 < len(toks) {
		if quantityUnits[toks[i+1]] {
			return amount{}, 0
		}
		if cur, ok := isCurrencyWord(toks[i+1]); ok && a.currency == "" {
			a.currency, a.strong = cur, true
			return a, 2
		}
	}
	return a, 1
}

// matchRecord finds one of the user's accounts or cards named at toks[i:]:
// by its name (the longest that fits), or a card by its last four digits
// ("x1234", "card ending 1234").
func (p *parser) matchRecord(toks []string, i int) (methodHit, int) {
	best, bestN := record{}, 0
	for _, r := range p.records {
		n := len(r.words)
		if n == 0 || i+n > len(toks) || n <= bestN {
			continue
		}
		ok := true
		for k, w := range r.words {
			if toks[i+k] != w && !(n == 1 && typoOf(toks[i+k], w)) {
				ok = false
				break
			}
		}
		if ok {
			best, bestN = r, n
		}
	}
	if bestN == 0 {
		// The first word of one record's name alone ("bpi" for BPI Savings),
		// unless that word means something else to the parser.
		if r, ok := p.onlyRecordStartingWith(toks[i]); ok {
			best, bestN = r, 1
		}
	}
	if bestN > 0 {
		// A card's name followed by "card" ("BPI card") takes the word with it.
		if i+bestN < len(toks) && toks[i+bestN] == "card" {
			bestN++
		}
		return hitFor(best), bestN
	}
	if m := lastFourRE().FindStringSubmatch(toks[i]); m != nil {
		if r, ok := p.cardEnding(m[1]); ok {
			return hitFor(r), 1
		}
	}
	lead := map[string]bool{"ending": true, "card": true, "visa": true, "mastercard": true, "cc": true, "amex": true}
	for n := 1; n <= 3 && i+n < len(toks); n++ {
		if !lead[toks[i]] && toks[i] != "in" {
			break
		}
		if m := fourDigitsRE().FindString(toks[i+n]); m != "" {
			if r, ok := p.cardEnding(m); ok {
				return hitFor(r), n + 1
			}
		}
		if !lead[toks[i+n]] && toks[i+n] != "in" {
			break
		}
	}
	return methodHit{}, 0
}

func (p *parser) onlyRecordStartingWith(tok string) (record, bool) {
	if len(tok) < 3 || categoryKeywords()[tok] != "" || slices.Contains(cashWords, tok) || slices.Contains(cardWords, tok) ||
		slices.Contains(debitWords, tok) || slices.Contains(ewalletWords, tok) || fillerWords[tok] {
		return record{}, false
	}
	var found []record
	for _, r := range p.records {
		if len(r.words) > 1 && r.words[0] == tok {
			found = append(found, r)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return record{}, false
}

func (p *parser) cardEnding(last4 string) (record, bool) {
	for _, r := range p.records {
		if r.card && r.last4 == last4 {
			return r, true
		}
	}
	return record{}, false
}

func hitFor(r record) methodHit {
	id := r.id
	if r.card {
		return methodHit{method: finance.MethodCreditCard, id: &id, named: true}
	}
	return methodHit{method: finance.MethodAccountDebit, id: &id, named: true}
}

// methodContext are the words after which "card", "debit" or "bank" is how
// one paid rather than what one bought ("birthday card 150" is a purchase).
var methodContext = map[string]bool{"via": true, "using": true, "with": true, "by": true, "thru": true,
	"through": true, "gamit": true, "sa": true, "on": true, "paid": true, "pay": true, "my": true, "from": true}

// matchMethodWord reads a payment word: generic ("cash", "credit card"),
// an e-wallet ("gcash") or a bank ("metrobank card", "bpi debit").
func (p *parser) matchMethodWord(toks []string, i int, before []span) (methodHit, int) {
	tryAt := func(i int, words []string) (string, int) {
		best, bestN := "", 0
		for _, w := range words {
			parts := strings.Fields(w)
			n := len(parts)
			if i+n > len(toks) || n <= bestN {
				continue
			}
			if strings.Join(toks[i:i+n], " ") == w || (n == 1 && typoOf(toks[i], w)) {
				best, bestN = w, n
			}
		}
		return best, bestN
	}
	try := func(words []string) (string, int) { return tryAt(i, words) }
	contextual := func() bool {
		if len(before) == 0 {
			return i == len(toks)-1
		}
		prev := before[len(before)-1]
		return prev.kind == kAmount || prev.kind == kDate || prev.kind == kMethod || methodContext[prev.norm] || i == len(toks)-1
	}
	if _, n := try(cashWords); n > 0 {
		return methodHit{method: finance.MethodCash}, n
	}
	if w, n := try(ewalletWords); n > 0 {
		return methodHit{method: finance.MethodAccountDebit, brand: w}, n
	}
	if w, n := try(bankWords); n > 0 {
		// The word after the bank says which of its products paid:
		// "metrobank card" a card, "bpi savings" an account, "bdo" alone either.
		if _, k := tryAt(i+n, cardWords); k > 0 {
			return methodHit{method: finance.MethodCreditCard, brand: w}, n + k
		}
		if _, k := tryAt(i+n, accountWords); k > 0 {
			return methodHit{method: finance.MethodAccountDebit, brand: w}, n + k
		}
		return methodHit{brand: w}, n
	}
	if w, n := try(cardWords); n > 0 && (n > 1 || w == "cc" || w == "visa" || w == "mastercard" || w == "amex" || contextual()) {
		return methodHit{method: finance.MethodCreditCard, generic: w}, n
	}
	if w, n := try(debitWords); n > 0 && (n > 1 || contextual()) {
		return methodHit{method: finance.MethodAccountDebit, generic: w}, n
	}
	return methodHit{}, 0
}

// ownDate is the first date an expense's text names, and whether it names
// the day only roughly.
func ownDate(spans []span) (d finance.Date, approx, ok bool) {
	for _, s := range spans {
		if s.kind == kDate {
			return s.date, s.approx, true
		}
	}
	return finance.Date{}, false, false
}

func hasAmount(spans []span) bool {
	return slices.ContainsFunc(spans, func(s span) bool { return s.kind == kAmount })
}

func hasWord(spans []span) bool {
	return slices.ContainsFunc(spans, func(s span) bool { return s.kind == kWord && !fillerWords[s.norm] })
}

// mergeAmountless joins a segment without an amount to a neighbour only
// when it adds to that one: dates and payment words alone join the next
// segment, or the one before at the end ("yesterday, lunch 250"; "lunch
// 250, gcash"), and words join a neighbouring amount that has no words of
// its own ("lunch, 250 cash"; "250 cash, for lunch"). A segment that says
// what was bought without an amount ("lunch 250\ncoffee at the mall") is an
// expense of its own, whose amount the person fills in: joined to another,
// it would change that one's description and hide the missing amount.
func mergeAmountless(pieces [][]span) [][]span {
	var out [][]span
	var pending []span
	bareAmount := false // the last of out is an amount without words, joined to nothing yet
	for i, p := range pieces {
		p = slices.Concat(pending, p)
		pending = nil
		afterBareAmount := bareAmount
		bareAmount = false
		switch {
		case hasAmount(p):
			out = append(out, p)
			bareAmount = !hasWord(p)
		case !hasWord(p):
			pending = p
		case afterBareAmount:
			out[len(out)-1] = append(out[len(out)-1], p...)
		case i+1 < len(pieces) && hasAmount(pieces[i+1]) && !hasWord(pieces[i+1]):
			pending = p
		default:
			out = append(out, p)
		}
	}
	if len(pending) > 0 {
		if len(out) == 0 {
			return [][]span{pending}
		}
		out[len(out)-1] = append(out[len(out)-1], pending...)
	}
	return out
}

// splitAtConnectors cuts "lunch 250 and coffee 120" in two; "coffee and
// cake 300" stays one expense, since only one side has an amount.
func splitAtConnectors(spans []span) [][]span {
	for i, s := range spans {
		if s.kind != kConnector {
			continue
		}
		left, right := spans[:i], spans[i+1:]
		if hasAmount(left) && hasAmount(right) {
			return append([][]span{left}, splitAtConnectors(right)...)
		}
	}
	return [][]span{spans}
}

// splitAtAmounts cuts "jeep 13 tricycle 20" in two: after each amount (and
// the date and payment words right after it, "lunch 250 cash yesterday"),
// when every part has words of its own; "2 coffee 300" stays one.
func splitAtAmounts(spans []span) [][]span {
	var parts [][]span
	start := 0
	for i := 0; i < len(spans); i++ {
		if spans[i].kind != kAmount {
			continue
		}
		end := i + 1
		for end < len(spans) && (spans[end].kind == kDate || spans[end].kind == kMethod || spans[end].kind == kIgnored ||
			(spans[end].kind == kWord && methodContext[spans[end].norm] && end+1 < len(spans) && spans[end+1].kind == kMethod)) {
			end++
		}
		if end < len(spans) && hasAmount(spans[end:]) {
			parts = append(parts, spans[start:end])
			start = end
			i = end - 1
		}
	}
	parts = append(parts, spans[start:])
	for _, p := range parts {
		if !hasWord(p) || !hasAmount(p) {
			return [][]span{spans}
		}
	}
	return parts
}

// draft makes the draft of one expense, dated as date says (nil: today).
func (p *parser) draft(spans []span, date datedAs) (finance.ExpenseDraft, []string) {
	d := finance.ExpenseDraft{Guessed: []string{}}
	var warnings []string

	// Amount: the expense's amount; the other numbers stay words.
	best := bestAmount(spans)
	for i := range spans {
		if spans[i].kind == kAmount && i != best {
			spans[i].kind = kWord
		}
	}
	if best >= 0 {
		a := spans[best].amount
		d.Amount = &a.value
		if a.currency != "" && p.in.Currency != "" && a.currency != p.in.Currency {
			warnings = append(warnings, fmt.Sprintf("the amount is in %s but your currency is %s; nothing is converted, so check it",
				a.currency, p.in.Currency))
		}
	} else {
		warnings = append(warnings, "no amount was found; fill it in")
	}

	// Date: the expense's own or the one it shares, else today.
	if date.date != nil {
		v := *date.date
		d.Date = &v
	} else {
		today := p.in.Today
		d.Date = &today
	}
	if date.guessed {
		d.Guessed = append(d.Guessed, "date")
	}

	warnings = append(warnings, p.payment(spans, &d)...)

	words := descriptionWords(spans)
	if len(words) > 0 {
		raw := make([]string, len(words))
		norm := make([]string, len(words))
		for i, w := range words {
			raw[i], norm[i] = w.raw, w.norm
		}
		desc := capitalize(strings.Join(raw, " "))
		if utf8.RuneCountInString(desc) > finance.MaxDescription {
			desc = string([]rune(desc)[:finance.MaxDescription])
		}
		d.Description = &desc
		if c, ok := p.inferCategory(norm); ok {
			d.Category = &c
		}
	}
	return d, warnings
}

// bestAmount is the index of an expense's amount among its spans, or -1:
// a marked one before a bare number; of those, the largest ("2 coffee 300"
// is 300).
func bestAmount(spans []span) int {
	best := -1
	for i, s := range spans {
		if s.kind != kAmount {
			continue
		}
		if best < 0 || (s.amount.strong && !spans[best].amount.strong) ||
			(s.amount.strong == spans[best].amount.strong && s.amount.value > spans[best].amount.value) {
			best = i
		}
	}
	return best
}

// descriptionWords are the words left once amount, date and payment are
// taken, without the filler at either end ("paid for lunch with" is "lunch").
func descriptionWords(spans []span) []span {
	var words []span
	for i, s := range spans {
		switch s.kind {
		case kWord, kConnector:
			// A word that only introduces a payment or a date ("via gcash")
			// goes with it, and one that introduces the amount ("worth 2,999") with that.
			if i+1 < len(spans) && (spans[i+1].kind == kMethod || spans[i+1].kind == kDate) && methodContext[s.norm] {
				continue
			}
			if i+1 < len(spans) && spans[i+1].kind == kAmount && fillerWords[s.norm] {
				continue
			}
			words = append(words, s)
		}
	}
	for len(words) > 0 && fillerWords[words[0].norm] {
		words = words[1:]
	}
	for len(words) > 0 && fillerWords[words[len(words)-1].norm] {
		words = words[:len(words)-1]
	}
	return words
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// payment sets the method and its account or card, adds to d.Guessed the
// ones the text did not state, and returns what the person should know.
// A record the text names beats a bank or e-wallet it names, which beats a
// generic word ("card"). A bank or e-wallet is the person's one account or
// card of that name, or none: never another one. With a generic word, or
// nothing (then the person's default method), the one card or bank account
// the person has is filled in, as a guess.
func (p *parser) payment(spans []span, d *finance.ExpenseDraft) []string {
	var hit *methodHit
	for i := range spans {
		if spans[i].kind != kMethod {
			continue
		}
		h := spans[i].method
		if hit == nil || h.rank() > hit.rank() {
			hit = &h
		}
	}
	if hit == nil {
		def := p.in.DefaultPaymentMethod
		if def == "" {
			def = finance.MethodCash
		}
		hit = &methodHit{method: def, generic: "default"}
		d.Guessed = append(d.Guessed, "payment_method")
	}
	resolved, found := p.resolveBrand(*hit)
	if found != 1 {
		if hit.method != "" {
			m := hit.method
			d.PaymentMethod = &m
		}
		return []string{brandProblem(hit.brand, hit.method, found)}
	}
	hit = &resolved
	m := hit.method
	d.PaymentMethod = &m
	if hit.id != nil {
		if hit.method == finance.MethodCreditCard {
			d.CreditCardID = hit.id
		} else {
			d.AccountID = hit.id
		}
		return nil
	}
	switch hit.method {
	case finance.MethodAccountDebit:
		if id, ok := p.onlyAccount(); ok {
			d.AccountID = &id
			d.Guessed = append(d.Guessed, "account_id")
			return nil
		}
		return []string{"choose the account it was paid from"}
	case finance.MethodCreditCard:
		if id, ok := p.onlyCard(); ok {
			d.CreditCardID = &id
			d.Guessed = append(d.Guessed, "credit_card_id")
			return nil
		}
		return []string{"choose the credit card it was charged to"}
	}
	return nil
}

// resolveBrand turns a bank or e-wallet the text names into the person's
// record of that name. found is how many records have it: the hit is
// resolved only when it is 1. A hit that names no brand is returned as it
// is, with found 1.
func (p *parser) resolveBrand(h methodHit) (methodHit, int) {
	if h.brand == "" || h.id != nil {
		return h, 1
	}
	found := p.recordsLike(h.brand, h.method)
	if len(found) != 1 {
		return h, len(found)
	}
	return hitFor(found[0]), 1
}

// brandProblem says why a bank or e-wallet the text names gave no account
// or card: the person has none of that name (found 0), or several.
func brandProblem(brand, method string, found int) string {
	what, choose := "account or card", "choose how it was paid"
	switch method {
	case finance.MethodAccountDebit:
		what, choose = "account", "choose the account it was paid from"
	case finance.MethodCreditCard:
		what, choose = "credit card", "choose the card it was charged to"
	}
	if found == 0 {
		return fmt.Sprintf("no active %s is named like %q; %s", what, brand, choose)
	}
	return fmt.Sprintf("more than one active %s is named like %q; %s", what, brand, choose)
}

// recordsLike are the person's records of the kind method names (any kind
// for "") whose name holds the bank or e-wallet word from the start of one
// of its words ("GCash", "My GCash", "Metrobank Mastercard" for "metro bank").
func (p *parser) recordsLike(brand, method string) []record {
	squash := func(s string) string { return strings.NewReplacer("-", "", " ", "").Replace(s) }
	key := squash(brand)
	var out []record
	for _, r := range p.records {
		if (method == finance.MethodCreditCard && !r.card) || (method == finance.MethodAccountDebit && r.card) {
			continue
		}
		for k := range r.words {
			if strings.HasPrefix(squash(strings.Join(r.words[k:], "")), key) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// onlyAccount is the user's one bank-type account, if there is exactly one.
func (p *parser) onlyAccount() (string, bool) {
	var ids []string
	for _, r := range p.records {
		if !r.card && r.typ != finance.AccountCash {
			ids = append(ids, r.id)
		}
	}
	if len(ids) == 1 {
		return ids[0], true
	}
	return "", false
}

// onlyCard is the user's one credit card, if there is exactly one.
func (p *parser) onlyCard() (string, bool) {
	var ids []string
	for _, r := range p.records {
		if r.card {
			ids = append(ids, r.id)
		}
	}
	if len(ids) == 1 {
		return ids[0], true
	}
	return "", false
}

// inferCategory picks the category of a description: a category the user
// named, else what the user chose before for these words, else the
// built-in keywords of the seeded categories.
func (p *parser) inferCategory(words []string) (string, bool) {
	text := " " + strings.Join(normalizeWords(words), " ") + " "
	bestName, bestLen := "", 0
	for key, name := range p.category {
		if len(key) > bestLen && strings.Contains(text, " "+key+" ") {
			bestName, bestLen = name, len(key)
		}
	}
	if bestLen > 0 {
		return bestName, true
	}
	if c, ok := p.history.lookup(words); ok {
		return c, true
	}
	return p.keywordCategory(words)
}

func normalizeWords(words []string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = append(out, normalizeName(w)...)
	}
	return out
}

// keywordCategory finds the first keyword in words (the longest at its
// place; typos of long words count) whose category the user has.
func (p *parser) keywordCategory(words []string) (string, bool) {
	words = normalizeWords(words)
	for i := range words {
		for n := min(3, len(words)-i); n >= 1; n-- {
			phrase := strings.Join(words[i:i+n], " ")
			if n == 1 {
				phrase = strings.Trim(phrase, "'")
			}
			c, ok := categoryKeywords()[phrase]
			if !ok && n == 1 {
				c, ok = categoryKeywords()[correct(phrase)]
			}
			if !ok && n == 1 && strings.HasSuffix(phrase, "s") {
				c, ok = categoryKeywords()[strings.TrimSuffix(phrase, "s")]
			}
			if !ok {
				continue
			}
			if name, has := p.category[strings.Join(normalizeName(c), " ")]; has {
				return name, true
			}
		}
	}
	return "", false
}

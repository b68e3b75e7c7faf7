package ai

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/finance-app/finance/finance"
)

// ParseReceipt is the built-in receipt reader: from the text of one receipt
// (OCR output) it drafts one expense with the receipt's total, date and
// merchant. The text is data: nothing printed on a receipt is ever followed
// as an instruction, it can only end up in the draft's fields.
func ParseReceipt(in finance.ParseInputs, text string) (finance.ExpenseDraft, []string) {
	p := newParser(in)
	lines := receiptLines(text)
	d := finance.ExpenseDraft{Guessed: []string{}}
	var warnings []string

	if total, ok := receiptTotal(lines); ok {
		d.Amount = &total
	} else {
		warnings = append(warnings, "no total was found on the receipt; fill in the amount")
	}
	if date, ok := receiptDate(p.dates, lines); ok {
		d.Date = &date
	} else {
		warnings = append(warnings, "no date was found on the receipt; fill it in")
	}
	if m := receiptMerchant(lines); m != "" {
		d.Description = &m
		if c, ok := p.inferCategory(strings.Fields(m)); ok {
			d.Category = &c
		}
	}
	if d.Category == nil {
		// The items bought say what kind of shop it was.
		var words []string
		for _, l := range lines {
			words = append(words, strings.Fields(strings.ToLower(l))...)
		}
		if c, ok := p.keywordCategory(words); ok {
			d.Category = &c
		}
	}
	warnings = append(warnings, p.receiptPayment(lines, &d)...)
	return d, warnings
}

// receiptLines are the text's lines, trimmed, without empty ones, with the
// usual OCR confusions inside numbers undone ("1,25O.0O" is 1,250.00).
func receiptLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(fixDigits(l))
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

var ocrNumberRE = lazyRegexp(`[0-9OolI][0-9OolI,.]*[0-9OolI]`)

func fixDigits(l string) string {
	return ocrNumberRE().ReplaceAllStringFunc(l, func(s string) string {
		digits := 0
		for _, r := range s {
			if unicode.IsDigit(r) {
				digits++
			}
		}
		if digits*2 < len(s) {
			return s // a word, not a number
		}
		return strings.NewReplacer("O", "0", "o", "0", "l", "1", "I", "1").Replace(s)
	})
}

// moneyRE finds an amount printed on a receipt: with two decimals, and
// perhaps a currency mark and thousands separators.
var moneyRE = lazyRegexp(`(?i)(?:₱|php|p|\$|€|£)?\s?(\d{1,3}(?:[,\s]\d{3})+|\d+)[.,](\d{2})\b`)

// lastAmount is the last amount on the line (the price column is on the right).
func lastAmount(line string) (finance.Money, bool) {
	all := moneyRE().FindAllStringSubmatch(line, -1)
	if len(all) == 0 {
		return 0, false
	}
	m := all[len(all)-1]
	intPart := strings.NewReplacer(",", "", " ", "").Replace(m[1])
	v, err := finance.ParseMoney(intPart + "." + m[2])
	if err != nil || v <= 0 {
		return 0, false
	}
	return v, true
}

// totalLabels rank the lines that may hold what was paid, most telling first.
var totalLabels = []func() *regexp.Regexp{
	lazyRegexp(`(?i)\b(grand\s*total|total\s*amount\s*due|amount\s*due|total\s*due|total\s*amount|net\s*total|total\s*sales|amount\s*payable)\b`),
	lazyRegexp(`(?i)\btotal\b`),
}

// notTotal are the lines with "total" that hold something else.
var notTotal = lazyRegexp(`(?i)sub\s*-?\s*total|total\s*(items?|qty|quantity|discount|savings|vat|tax)|no\.?\s*of\s*items|vatable|change|tendered|cash\b`)

// receiptTotal is the amount on the best total line: the highest ranked
// label, the last such line (totals follow subtotals). Without one, the
// largest amount on a line that is not payment or change.
func receiptTotal(lines []string) (finance.Money, bool) {
	for _, label := range totalLabels {
		var found finance.Money
		ok := false
		for i, l := range lines {
			if !label().MatchString(l) || notTotal().MatchString(l) {
				continue
			}
			v, has := lastAmount(l)
			if !has && i+1 < len(lines) {
				v, has = lastAmount(lines[i+1]) // the amount printed below its label
			}
			if has {
				found, ok = v, true
			}
		}
		if ok {
			return found, true
		}
	}
	var best finance.Money
	for _, l := range lines {
		if notTotal().MatchString(l) {
			continue
		}
		if v, ok := lastAmount(l); ok && v > best {
			best = v
		}
	}
	return best, best > 0
}

var receiptDateREs = []func() *regexp.Regexp{
	lazyRegexp(`\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b`),
	lazyRegexp(`\b(\d{1,2})[-/.](\d{1,2})[-/.](\d{2,4})\b`),
	lazyRegexp(`(?i)\b([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`),
	lazyRegexp(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?[\s-]+([a-z]{3,9})\.?[\s-]+(\d{2,4})\b`),
}

// receiptDate is the first date printed on the receipt, from a line that
// says "date" if there is one.
func receiptDate(r dateReader, lines []string) (finance.Date, bool) {
	ordered := make([]string, 0, len(lines))
	for _, l := range lines {
		if strings.Contains(strings.ToLower(l), "date") {
			ordered = append(ordered, l)
		}
	}
	ordered = append(ordered, lines...)
	for _, l := range ordered {
		for i, re := range receiptDateREs {
			for _, m := range re().FindAllStringSubmatch(l, -1) {
				var d finance.Date
				ok := false
				switch i {
				case 0:
					d, ok = r.ymd(m[1], m[2], m[3])
				case 1:
					d, ok = r.numeric(m[1], m[2], fullYear(m[3]))
				case 2:
					if mon, has := month(strings.ToLower(m[1])); has {
						d, ok = r.monthDay(mon, m[2], m[3])
					}
				case 3:
					if mon, has := month(strings.ToLower(m[2])); has {
						d, ok = r.monthDay(mon, m[1], fullYear(m[3]))
					}
				}
				if ok {
					return d, true
				}
			}
		}
	}
	return finance.Date{}, false
}

func fullYear(y string) string {
	if len(y) == 3 {
		return ""
	}
	return y
}

// headerNoise are the lines at the top of a receipt that are not its merchant.
var headerNoise = lazyRegexp(`(?i)^(official\s+receipt|sales\s+invoice|receipt|invoice|tax\s+invoice|welcome|thank\s+you|tin\b|vat\s*reg|non-?vat|tel\b|phone\b|date\b|time\b|cashier|terminal|store\s*#|branch|or\s*(no|#)|si\s*(no|#)|min\b|sn\b|ptu\b|accr)`)

// receiptMerchant is the first line near the top that reads like a name:
// mostly letters, not an address or a receipt's heading.
func receiptMerchant(lines []string) string {
	for i, l := range lines {
		if i >= 6 {
			break
		}
		if headerNoise().MatchString(l) {
			continue
		}
		letters, digits := 0, 0
		for _, r := range l {
			switch {
			case unicode.IsLetter(r):
				letters++
			case unicode.IsDigit(r):
				digits++
			}
		}
		if letters < 3 || digits*3 > letters {
			continue
		}
		name := strings.Join(strings.Fields(strings.Trim(l, "*=-_~#.:| ")), " ")
		if name == strings.ToUpper(name) {
			name = titleCase(name)
		}
		if len([]rune(name)) > finance.MaxDescription {
			name = string([]rune(name)[:finance.MaxDescription])
		}
		return name
	}
	return ""
}

// titleCase writes an all-capitals line as a name ("JOLLIBEE FOODS" is "Jollibee Foods").
func titleCase(s string) string {
	words := strings.Fields(strings.ToLower(s))
	for i, w := range words {
		words[i] = capitalize(w)
	}
	return strings.Join(words, " ")
}

var cardOnReceipt = lazyRegexp(`(?i)(visa|master\s*card|mastercard|amex|jcb|credit|card)[^0-9]{0,20}(?:[x*•#]+\s*)?(\d{4})\b`)

// receiptPayment reads how the receipt was paid: a card by its last four
// digits, an e-wallet, or cash; otherwise the user's default applies.
func (p *parser) receiptPayment(lines []string, d *finance.ExpenseDraft) []string {
	var spans []span
	for _, l := range lines {
		low := strings.ToLower(l)
		if m := cardOnReceipt().FindStringSubmatch(l); m != nil {
			if r, ok := p.cardEnding(m[2]); ok {
				spans = append(spans, span{kind: kMethod, method: hitFor(r)})
				continue
			}
		}
		for _, w := range ewalletWords {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(low) {
				spans = append(spans, span{kind: kMethod, method: methodHit{method: finance.MethodAccountDebit, brand: w}})
			}
		}
	}
	return p.payment(spans, d)
}

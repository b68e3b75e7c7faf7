package finance

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Matches of an import row against the ledger (domain.md "Matching against
// the ledger").
const (
	MatchExact    = "exact"
	MatchProbable = "probable"
	// MatchNone is the value of the rows filter for rows without a match.
	MatchNone = "none"
)

// ImportMatch is the ledger record a row duplicates: an account line or a
// card row of the batch's target.
type ImportMatch struct {
	Kind     string `json:"kind"`
	RecordID string `json:"record_id"`
}

// LedgerEntry is a record of an import's target as matching sees it: an
// account's posted line or a card's row that is not voided.
type LedgerEntry struct {
	ID          string
	Date        Date
	Amount      Money
	Direction   string
	Description string
}

// probableDays is how far apart a bank's posting date and the day a person
// recorded the purchase may be for a probable match.
const probableDays = 3

// matchRows sets the match of every row that has no error, in file order,
// against ledger (the target's records from a few days before the first
// row to a few days after the last, oldest made first) and bankIDs (the bank
// ids of earlier committed rows of the target, with the record each stands
// for). A row whose bank id repeats an earlier row of the file gets an error.
func matchRows(rows []ImportRow, ledger []LedgerEntry, bankIDs map[string]string) {
	taken := map[string]bool{}
	firstLine := map[string]int{}
	for i := range rows {
		r := &rows[i]
		if r.Error != nil || r.BankID == nil {
			continue
		}
		if line, ok := firstLine[*r.BankID]; ok {
			r.setError(fmt.Sprintf("repeats the bank id of line %d", line))
			continue
		}
		firstLine[*r.BankID] = r.Line
		if id, ok := bankIDs[*r.BankID]; ok {
			r.Match, taken[id] = &ImportMatch{Kind: MatchExact, RecordID: id}, true
		}
	}

	// Occurrences: the n-th row of a date, amount and direction matches the
	// n-th record of the ledger with them, by when it was made.
	type key struct {
		date      Date
		amount    Money
		direction string
	}
	records := map[key][]string{}
	for _, e := range ledger {
		if !taken[e.ID] {
			k := key{e.Date, e.Amount, e.Direction}
			records[k] = append(records[k], e.ID)
		}
	}
	seen := map[key]int{}
	for i := range rows {
		r := &rows[i]
		if r.Error != nil || r.Match != nil || r.Date == nil {
			continue
		}
		k := key{*r.Date, *r.Amount, r.Direction}
		n := seen[k]
		seen[k] = n + 1
		if n < len(records[k]) {
			id := records[k][n]
			r.Match, taken[id] = &ImportMatch{Kind: MatchExact, RecordID: id}, true
		}
	}

	// Probable: the nearest untaken record within a few days, with the same
	// amount and direction and a similar description.
	for i := range rows {
		r := &rows[i]
		if r.Error != nil || r.Match != nil || r.Date == nil {
			continue
		}
		best, bestGap := "", probableDays+1
		for _, e := range ledger {
			if taken[e.ID] || e.Amount != *r.Amount || e.Direction != r.Direction {
				continue
			}
			gap := abs(r.Date.DaysUntil(e.Date))
			if gap < bestGap && similar(r.Description, e.Description) {
				best, bestGap = e.ID, gap
			}
		}
		if best != "" {
			r.Match, taken[best] = &ImportMatch{Kind: MatchProbable, RecordID: best}, true
		}
	}
}

// similar reports whether two descriptions read alike for a probable
// match: one contains the other, or they share a word of four letters or
// more, case and punctuation ignored.
func similar(a, b string) bool {
	na, nb := normalized(a), normalized(b)
	if na == "" || nb == "" {
		return false
	}
	if strings.Contains(na, nb) || strings.Contains(nb, na) {
		return true
	}
	wb := words(b)
	for w := range words(a) {
		if utf8.RuneCountInString(w) >= 4 && wb[w] {
			return true
		}
	}
	return false
}

// normalized is s as its words, lowercased, one space apart.
func normalized(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), notWordRune), " ")
}

// notWordRune separates words: anything but letters and digits.
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

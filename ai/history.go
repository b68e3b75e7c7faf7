package ai

import (
	"strings"

	"github.com/finance-app/finance/finance"
)

// historyIndex is what a user chose before: the categories of their recent
// expenses by whole description and by significant word. A person who filed
// "Dog food" under Pets once gets Pets for "dog food 500" the next time.
type historyIndex struct {
	exact map[string]map[string]int // normalized description -> category -> times
	words map[string]map[string]int // significant word -> category -> times
	order map[string]int            // category -> rank of its newest use (0 is the newest)
}

// newHistoryIndex indexes choices (newest first) whose category the user
// still has (active names by normalized name).
func newHistoryIndex(choices []finance.ExpenseChoice, categories map[string]string) historyIndex {
	h := historyIndex{exact: map[string]map[string]int{}, words: map[string]map[string]int{}, order: map[string]int{}}
	bump := func(m map[string]map[string]int, key, cat string) {
		if m[key] == nil {
			m[key] = map[string]int{}
		}
		m[key][cat]++
	}
	for i, c := range choices {
		cat, ok := categories[strings.Join(normalizeName(c.Category), " ")]
		if !ok {
			continue
		}
		if _, seen := h.order[cat]; !seen {
			h.order[cat] = i
		}
		words := normalizeName(c.Description)
		bump(h.exact, strings.Join(words, " "), cat)
		seen := map[string]bool{}
		for _, w := range words {
			if significant(w) && !seen[w] {
				seen[w] = true
				bump(h.words, w, cat)
			}
		}
	}
	return h
}

// significant reports whether w can tell one merchant or purchase from another.
func significant(w string) bool {
	if len([]rune(w)) < 3 || stopWords[w] || fillerWords[w] {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return true
		}
	}
	return false
}

// lookup returns the category the user chose most for this very
// description, else for its significant words together. Ties go to the
// category used most recently.
func (h historyIndex) lookup(words []string) (string, bool) {
	norm := normalizeWords(words)
	if c, ok := h.best(h.exact[strings.Join(norm, " ")]); ok {
		return c, true
	}
	// The first significant word is what the expense is (a merchant, "dog
	// food"): it must be one the user used before, or a shared word alone
	// ("checkup" in "Vet checkup") would carry "doctor checkup" to Pets.
	var sig []string
	for _, w := range norm {
		if significant(w) {
			sig = append(sig, w)
		}
	}
	if len(sig) == 0 || len(h.words[sig[0]]) == 0 {
		return "", false
	}
	votes := map[string]int{}
	for _, w := range sig {
		for cat, n := range h.words[w] {
			votes[cat] += n
		}
	}
	return h.best(votes)
}

func (h historyIndex) best(votes map[string]int) (string, bool) {
	best, bestN := "", 0
	for cat, n := range votes {
		if n > bestN || (n == bestN && (h.order[cat] < h.order[best] || (h.order[cat] == h.order[best] && cat < best))) {
			best, bestN = cat, n
		}
	}
	return best, bestN > 0
}

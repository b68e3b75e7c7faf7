package ai

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// editDistance is the optimal string alignment distance of a and b: the
// fewest letters inserted, deleted, replaced or swapped with a neighbour to
// turn one into the other ("yesterdy" is 1 from "yesterday", "freind" 1 from "friend").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// typoOf reports whether word is a typo of known: it differs by one edit
// (two for words of 8 letters or more), both are at least 5 letters long,
// and they start with the same letter (people rarely get the first one wrong,
// and it keeps "lunch" from matching "munch").
func typoOf(word, known string) bool {
	n := utf8.RuneCountInString(known)
	if n < 5 || utf8.RuneCountInString(word) < 4 || word == known {
		return word == known
	}
	w0, _ := utf8.DecodeRuneInString(word)
	k0, _ := utf8.DecodeRuneInString(known)
	if w0 != k0 {
		return false
	}
	limit := 1
	if n >= 8 {
		limit = 2
	}
	d := abs(utf8.RuneCountInString(word) - n)
	if d > limit {
		return false
	}
	return editDistance(word, known) <= limit
}

// correct returns the vocabulary word that word is a typo of, or word itself.
func correct(word string) string {
	if !isLetters(word) {
		return word
	}
	for _, k := range fuzzyVocabulary {
		if typoOf(word, k) {
			return k
		}
	}
	return word
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// normalizeName is a name as the parser compares it: lowercase words,
// "&" read as "and", punctuation at word edges dropped.
func normalizeName(s string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(s)) {
		f = strings.Trim(f, `"'()[]{}!?:.,;`)
		if f == "&" {
			f = "and"
		}
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

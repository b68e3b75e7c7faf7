package web

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/finance-app/finance/finance"
)

// A write that looks like a mistake is saved and answered with warnings
// (docs/domain.md, Warnings). A form redirects after it, so the warnings
// ride to the next page in a short-lived cookie and are shown there once,
// above its content: a query parameter would let any link print words of
// its choosing in the warning box.

// warningsCookie holds the messages of the last saved write's warnings.
const warningsCookie = "finance_warnings"

// maxWarningText bounds the messages kept, well under a cookie's 4 KB;
// the rest are counted.
const maxWarningText = 2500

// keepWarnings keeps ws for the page the write redirects to; label, when
// not nil, says which row of the form a bulk item's warning is about.
func (s *Site) keepWarnings(w http.ResponseWriter, ws []finance.Warning, label func(index int) string) {
	if len(ws) == 0 {
		return
	}
	var msgs []string
	size := 0
	for i, x := range ws {
		m := x.Message
		if x.Index != nil && label != nil {
			m = label(*x.Index) + ": " + m
		}
		if size += len(m); size > maxWarningText {
			msgs = append(msgs, fmt.Sprintf("And %d more warnings.", len(ws)-i))
			break
		}
		msgs = append(msgs, m)
	}
	b, _ := json.Marshal(msgs)
	s.setCookie(w, warningsCookie, base64.RawURLEncoding.EncodeToString(b), 300, http.SameSiteLaxMode)
}

// takeWarnings returns the warnings kept for this page, and forgets them.
func (s *Site) takeWarnings(w http.ResponseWriter, r *http.Request) []string {
	v := s.cookieValue(r, warningsCookie)
	if v == "" {
		return nil
	}
	s.setCookie(w, warningsCookie, "", -1, http.SameSiteLaxMode)
	b, err := base64.RawURLEncoding.DecodeString(v)
	var msgs []string
	if err != nil || json.Unmarshal(b, &msgs) != nil {
		return nil
	}
	return msgs
}

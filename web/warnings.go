package web

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/finance-app/finance/finance"
)

// A write that looks like a mistake is saved and answered with warnings
// (docs/domain.md, Warnings). A form redirects after it, so the warnings
// ride to the next page in a short-lived cookie and are shown there once,
// above its content: a query parameter would let any link print words of
// its choosing in the warning box.
//
// Most warnings ask the person to check what they entered. A back-dated
// card charge's warnings do not: they say how the card's statements bill
// the charge the person dated so (docs/domain.md, Back-dated card charges,
// On the web pages), so the page shows them as notes, in a box of their own.

// warningsCookie holds the messages of the last saved write's warnings.
const warningsCookie = "finance_warnings"

// maxWarningText bounds the messages kept, well under a cookie's 4 KB;
// the rest are counted.
const maxWarningText = 2500

// pageWarning is a warning as a page shows it: its message, and a link to
// the record it concerns (Link empty: none).
type pageWarning struct {
	Text string `json:"t"`
	Link string `json:"l,omitempty"`
	// LinkText says where Link goes.
	LinkText string `json:"n,omitempty"`
	// Note is set for a note about the card's statements rather than a
	// possible mistake.
	Note bool `json:"k,omitempty"`
}

// pageWarnings are the warnings a page shows, in the order of the write's.
type pageWarnings []pageWarning

// Mistakes are the warnings that ask the person to check what they entered.
func (ws pageWarnings) Mistakes() pageWarnings { return ws.kind(false) }

// Notes are the notes about how a card's statements bill a charge.
func (ws pageWarnings) Notes() pageWarnings { return ws.kind(true) }

func (ws pageWarnings) kind(note bool) pageWarnings {
	var out pageWarnings
	for _, w := range ws {
		if w.Note == note {
			out = append(out, w)
		}
	}
	return out
}

// statementNote tells the codes that are notes about a card's statements.
func statementNote(code string) bool {
	return code == finance.WarnStatementsFromMoved || code == finance.WarnBilledOnNextStatement
}

// warningLink is the page of the record a warning concerns: the account
// or card left over the line, the earlier expense, the bill or the loan to
// pay instead.
func warningLink(x finance.Warning) (href, text string) {
	switch {
	case x.AccountID != "":
		return AccountsPath + "/" + x.AccountID, "Open the account"
	case x.CreditCardID != "":
		return CardsPath + "/" + x.CreditCardID, "Open the card"
	case x.ExpenseID != "":
		return ExpensesPath + "/" + x.ExpenseID + "/edit", "Open the earlier expense"
	case x.BillID != "":
		return BillsPath + "/" + x.BillID, "Open the bill"
	case x.LoanID != "":
		return LoansPath + "/" + x.LoanID, "Open the loan"
	}
	return "", ""
}

// agentHints are the parts of a warning's message written for an API
// client or an agent: which tool and route would act on it, and a record's
// id. A person acts through the link beside the message instead.
var agentHints = regexp.MustCompile(`\s*\([a-z_]+, (?:GET|POST|PUT|PATCH|DELETE) /api/[^)]*\)|, id [0-9a-f-]{36}`)

// forPeople is a warning's message without its agentHints.
func forPeople(message string) string { return agentHints.ReplaceAllString(message, "") }

// keepWarnings keeps ws for the page the write redirects to; label, when
// not nil, says which row of the form a bulk item's warning is about.
func (s *Site) keepWarnings(w http.ResponseWriter, ws []finance.Warning, label func(index int) string) {
	if len(ws) == 0 {
		return
	}
	var kept []pageWarning
	size := 0
	for i, x := range ws {
		p := pageWarning{Text: forPeople(x.Message), Note: statementNote(x.Code)}
		if x.Index != nil && label != nil {
			p.Text = label(*x.Index) + ": " + p.Text
		}
		p.Link, p.LinkText = warningLink(x)
		if size += len(p.Text) + len(p.Link); size > maxWarningText {
			kept = append(kept, pageWarning{Text: fmt.Sprintf("And %d more warnings.", len(ws)-i)})
			break
		}
		kept = append(kept, p)
	}
	b, _ := json.Marshal(kept)
	s.setCookie(w, warningsCookie, base64.RawURLEncoding.EncodeToString(b), 300, http.SameSiteLaxMode)
}

// isoDate is a date as a warning's message writes it, YYYY-MM-DD.
var isoDate = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)

// inDateFormat writes the dates of a warning's text in the person's date
// format, as every other date on the pages is written.
func inDateFormat(text string, show display) string {
	return isoDate.ReplaceAllStringFunc(text, func(s string) string {
		d, err := finance.ParseDate(s)
		if err != nil {
			return s
		}
		return show.Date(d)
	})
}

// takeWarnings returns the warnings kept for u's page, and forgets them.
// A link that is not one of this site's pages is dropped, whoever wrote
// the cookie.
func (s *Site) takeWarnings(w http.ResponseWriter, r *http.Request, u finance.User) pageWarnings {
	v := s.cookieValue(r, warningsCookie)
	if v == "" {
		return nil
	}
	s.setCookie(w, warningsCookie, "", -1, http.SameSiteLaxMode)
	b, err := base64.RawURLEncoding.DecodeString(v)
	var kept pageWarnings
	if err != nil || json.Unmarshal(b, &kept) != nil {
		return nil
	}
	// Without the settings the dates stay as the message wrote them.
	show, err := s.displayFor(r.Context(), u.ID)
	for i := range kept {
		if l := kept[i].Link; !strings.HasPrefix(l, "/") || strings.HasPrefix(l, "//") {
			kept[i].Link = ""
		}
		if err == nil {
			kept[i].Text = inDateFormat(kept[i].Text, show)
		}
	}
	return kept
}

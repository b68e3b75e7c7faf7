package ai

import (
	"fmt"
	"slices"

	"github.com/finance-app/finance/finance"
)

// mentions is what the text of an expense says, as the built-in parser
// reads it: the days it names, the payment methods, and the person's
// accounts and cards. A model's drafts are held to it.
type mentions struct {
	dates     []finance.Date  // the days it names exactly (not "last week")
	methods   map[string]bool // the payment methods it names, by a word or a record
	accounts  map[string]bool // the person's accounts it names
	cards     map[string]bool // the person's cards it names
	unmatched bool            // it names a bank or e-wallet that is not one record of the person's
}

func (p *parser) mentionsOf(spans []span) mentions {
	m := mentions{methods: map[string]bool{}, accounts: map[string]bool{}, cards: map[string]bool{}}
	for _, s := range spans {
		switch s.kind {
		case kDate:
			if !s.approx {
				m.dates = append(m.dates, s.date)
			}
		case kMethod:
			h, found := p.resolveBrand(s.method)
			m.unmatched = m.unmatched || found != 1
			if h.method != "" {
				m.methods[h.method] = true
			}
			switch {
			case h.id == nil:
			case h.method == finance.MethodCreditCard:
				m.cards[*h.id] = true
			default:
				m.accounts[*h.id] = true
			}
		}
	}
	return m
}

// heldToNote holds a model's drafts of a note to what the note says, by
// the rules the built-in parser keeps for its own drafts. Each draft is
// read against the expense of the note with the same amount (the whole
// note when no one expense has it). A date that expense does not name
// exactly is a guess (today, another expense's, "last week"), and so is a
// payment method it does not name. An account or card stands when it names
// it; or, when it names no account (card) and no bank or e-wallet the
// person lacks, when it is the person's only one, as a guess. Any other is
// dropped with a warning: a model must not put one of the person's cards in
// place of a card the note names, or of none.
func heldToNote(in finance.ParseInputs, note string, res Result) Result {
	p := newParser(in)
	expenses := p.expenses(note)
	whole := p.mentionsOf(slices.Concat(expenses...))
	onlyAccount, hasOnlyAccount := p.onlyAccount()
	onlyCard, hasOnlyCard := p.onlyCard()
	for i := range res.Items {
		d := &res.Items[i]
		m := whole
		if d.Amount != nil {
			var same []mentions
			for _, e := range expenses {
				if best := bestAmount(e); best >= 0 && e[best].amount.value == *d.Amount {
					same = append(same, p.mentionsOf(e))
				}
			}
			if len(same) == 1 {
				m = same[0]
			}
		}
		d.Guessed = []string{}
		if d.Date != nil && !slices.Contains(m.dates, *d.Date) {
			d.Guessed = append(d.Guessed, "date")
		}
		if d.PaymentMethod != nil {
			if method, ok := finance.ParsePaymentMethod(*d.PaymentMethod); ok && !m.methods[method] {
				d.Guessed = append(d.Guessed, "payment_method")
			}
		}
		if keep, guess := namedOrOnly(d.AccountID, m.accounts, onlyAccount, hasOnlyAccount && !m.unmatched); !keep {
			res.Warnings = append(res.Warnings, fmt.Sprintf("items[%d].account_id is an account the text does not name; it was left empty", i))
			d.AccountID = nil
		} else if guess {
			d.Guessed = append(d.Guessed, "account_id")
		}
		if keep, guess := namedOrOnly(d.CreditCardID, m.cards, onlyCard, hasOnlyCard && !m.unmatched); !keep {
			res.Warnings = append(res.Warnings, fmt.Sprintf("items[%d].credit_card_id is a card the text does not name; it was left empty", i))
			d.CreditCardID = nil
		} else if guess {
			d.Guessed = append(d.Guessed, "credit_card_id")
		}
	}
	return res
}

// namedOrOnly decides on a model's account or card id: kept when the text
// names it (or it is null), kept as a guess when the text names none of
// that kind and it is the person's only one (only, if onlyOK), else dropped.
func namedOrOnly(id *string, named map[string]bool, only string, onlyOK bool) (keep, guess bool) {
	switch {
	case id == nil || named[*id]:
		return true, false
	case len(named) == 0 && onlyOK && *id == only:
		return true, true
	}
	return false, false
}

// heldToPhotos marks what a vision model read of receipt photos that the
// server cannot hold to any text: how it was paid, and with which account
// or card. The amount, date and merchant are what the photo shows.
func heldToPhotos(res Result) Result {
	for i := range res.Items {
		d := &res.Items[i]
		d.Guessed = []string{}
		if d.PaymentMethod != nil {
			d.Guessed = append(d.Guessed, "payment_method")
		}
		if d.AccountID != nil {
			d.Guessed = append(d.Guessed, "account_id")
		}
		if d.CreditCardID != nil {
			d.Guessed = append(d.Guessed, "credit_card_id")
		}
	}
	return res
}
